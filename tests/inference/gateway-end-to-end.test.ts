// The typical workflow's last step: an API key and the deployment name, through the inference gateway,
// to a real llama.cpp worker of the tiny model, with the official openai SDK.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Ajv from "ajv";
import OpenAI from "openai";
import type { OpenAIError } from "#contracts/openai/error.ts";
import type { DELETE as revokeKeyRoute } from "#routes/filtration/management/api-keys/[id].ts";
import type { POST as createKeyRoute } from "#routes/filtration/management/api-keys/index.ts";
import type { GET as recentLogsRoute } from "#routes/filtration/management/deployments/recent-logs.ts";
import { weather } from "../engines/worker-support.ts";
import { eventually, type OrchestrationTest } from "../orchestration/support.ts";
import { call, jsonBody } from "../support/app.ts";
import { until } from "../support/wait.ts";
import { startTinyDeployment, type TinyDeployment } from "./tiny-deployment.ts";

let tiny: TinyDeployment;
let o: OrchestrationTest;
let apiKey: string;
let baseUrl: string;

beforeAll(async () => {
  tiny = await startTinyDeployment();
  ({ o, apiKey, baseUrl } = tiny);
}, 120_000);
afterAll(() => tiny?.close(), 60_000);

const client = () => new OpenAI({ apiKey, baseURL: baseUrl, maxRetries: 0 });

test("a chat completion through the gateway parses with the openai SDK, and usage adds up", async () => {
  const answer = await client().chat.completions.create({
    model: "tiny-chat",
    messages: [{ role: "user", content: "Hello" }],
    max_tokens: 8,
  });
  expect(answer.object).toBe("chat.completion");
  expect(answer.model).toBe("tiny-chat");
  expect(typeof answer.choices[0]?.message.content).toBe("string");
  const usage = answer.usage;
  expect(usage?.prompt_tokens).toBeGreaterThan(0);
  expect(usage?.completion_tokens).toBeLessThanOrEqual(8);
  expect(usage?.total_tokens).toBe((usage?.prompt_tokens ?? 0) + (usage?.completion_tokens ?? 0));
});

test("streaming through the gateway yields deltas and, when asked, usage", async () => {
  const stream = await client().chat.completions.create({
    model: "tiny-chat",
    messages: [{ role: "user", content: "Hello" }],
    max_tokens: 8,
    stream: true,
    stream_options: { include_usage: true },
  });
  let deltas = 0;
  let usage: OpenAI.CompletionUsage | undefined | null;
  for await (const chunk of stream) {
    if (chunk.choices[0]?.delta?.content) deltas++;
    if (chunk.usage) usage = chunk.usage;
  }
  expect(deltas).toBeGreaterThan(0);
  expect(usage?.total_tokens).toBeGreaterThan(0);
});

test("embeddings through the gateway reach the real engine with the openai SDK, and are logged", async () => {
  const res = await client().embeddings.create({ model: "tiny-chat", input: ["parental leave", "laptops"] });
  expect(res.object).toBe("list");
  expect(res.model).toBe("tiny-chat");
  expect(res.data.map((d) => d.index)).toEqual([0, 1]);
  expect(res.data[0]?.embedding.length).toBeGreaterThan(8);
  expect(res.data[0]?.embedding).not.toEqual(res.data[1]?.embedding);
  expect(res.usage.prompt_tokens).toBeGreaterThan(0);
  const refused = await fetch(`${baseUrl}/embeddings`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-nope" },
    body: JSON.stringify({ model: "tiny-chat", input: "x" }),
  });
  expect(refused.status).toBe(401);
  expect((await jsonBody<OpenAIError>(refused)).error.code).toBe("invalid_api_key");
  await eventually(
    async () => {
      const logs = await call<typeof recentLogsRoute>(
        o.filtration,
        "GET",
        "/management/deployments/recent-logs",
        {
          token: o.token,
        },
      );
      return logs.body.items.some((l) => l.total_tokens === res.usage.total_tokens && !l.stream);
    },
    10_000,
    "the embeddings request in the inference log",
  );
});

test("a bad key is 401 invalid_api_key and an unknown model 404 model_not_found, in the OpenAI shape", async () => {
  const bad = new OpenAI({
    apiKey: "sk-not-a-key",
    baseURL: baseUrl,
    maxRetries: 0,
  });
  const unauthorized = await bad.chat.completions
    .create({ model: "tiny-chat", messages: [{ role: "user", content: "x" }] })
    .catch((e) => e);
  expect(unauthorized.status).toBe(401);
  expect(unauthorized.code).toBe("invalid_api_key");
  const missing = await client()
    .chat.completions.create({ model: "no-such", messages: [{ role: "user", content: "x" }] })
    .catch((e) => e);
  expect(missing.status).toBe(404);
  expect(missing.code).toBe("model_not_found");
});

test("GET /v1/models lists the deployments the key may call", async () => {
  const models = await client().models.list();
  expect(models.data.map((m) => m.id)).toContain("tiny-chat");
});

test("a revoked key is refused by the gateway within one second", async () => {
  const key = await call<typeof createKeyRoute>(o.filtration, "POST", "/management/api-keys", {
    token: o.token,
    body: { name: "short-lived" },
  });
  const doomed = new OpenAI({
    apiKey: key.body.key,
    baseURL: baseUrl,
    maxRetries: 0,
  });
  const ask = () =>
    doomed.chat.completions.create({
      model: "tiny-chat",
      messages: [{ role: "user", content: "x" }],
      max_tokens: 2,
    });
  await ask(); // cached now
  expect(
    (
      await call<typeof revokeKeyRoute>(o.filtration, "DELETE", `/management/api-keys/${key.body.id}`, {
        token: o.token,
      })
    ).status,
  ).toBe(200);
  const revokedAt = Date.now();
  // Measured in real time, as a caller sees it: asked until refused.
  const refusedAfter = await until(
    async () => {
      const result = await ask().catch((e) => e);
      return result?.status === 401 && Date.now() - revokedAt;
    },
    { what: "the revoked key refused", timeoutMs: 3000 },
  );
  expect(refusedAfter).toBeDefined();
  expect(refusedAfter).toBeLessThanOrEqual(1100);
});

describe("tools and structured outputs pass through the gateway to the llama.cpp worker", () => {
  const ajv = new Ajv({ strict: true });

  test("a required tool call, streamed: the SDK assembles arguments valid for the schema; usage is counted", async () => {
    const stream = client().chat.completions.stream({
      model: "tiny-chat",
      messages: [{ role: "user", content: "Weather in Paris?" }],
      tools: [{ type: "function", function: { name: "get_weather", parameters: weather } }],
      tool_choice: "required",
      max_tokens: 300,
      seed: 3,
      stream_options: { include_usage: true },
    });
    let pieces = 0;
    for await (const chunk of stream) pieces += chunk.choices[0]?.delta.tool_calls?.length ?? 0;
    const final = await stream.finalChatCompletion();
    expect(pieces).toBeGreaterThan(3);
    expect(final.choices[0]?.finish_reason).toBe("tool_calls");
    const call = final.choices[0]?.message.tool_calls?.[0];
    if (call?.type !== "function") throw new Error("expected a function call");
    expect(call.id).toMatch(/^call_/);
    expect(call.function.name).toBe("get_weather");
    const validate = ajv.compile(weather);
    expect(validate(JSON.parse(call.function.arguments)) ? [] : validate.errors).toEqual([]);
    // The worker's usage counts the call's tokens, and the gateway logs them.
    const completion = final.usage?.completion_tokens ?? 0;
    expect(completion).toBeGreaterThan(10);
    await eventually(
      async () => {
        const logs = await call_logs();
        return logs.some((l) => l.stream && l.completion_tokens === completion);
      },
      10_000,
      "the streamed tool call in the inference log",
    );
  });

  test("a json_schema answer with logprobs comes back valid, its logprobs intact", async () => {
    const schema = {
      type: "object",
      properties: {
        answer: { type: "string", enum: ["yes", "no"] },
        items: { type: "array", items: { type: "integer" }, maxItems: 3 },
      },
      required: ["answer", "items"],
      additionalProperties: false,
    } as const;
    const res = await client().chat.completions.create({
      model: "tiny-chat",
      messages: [{ role: "user", content: "Yes or no?" }],
      response_format: { type: "json_schema", json_schema: { name: "verdict", schema, strict: true } },
      logprobs: true,
      top_logprobs: 2,
      max_tokens: 300,
      seed: 5,
    });
    expect(res.choices[0]?.finish_reason).toBe("stop");
    const content = res.choices[0]?.message.content ?? "";
    const validate = ajv.compile(schema);
    expect(validate(JSON.parse(content)) ? [] : validate.errors).toEqual([]);
    const tokens = res.choices[0]?.logprobs?.content ?? [];
    expect(Buffer.from(tokens.flatMap((t) => t.bytes ?? [])).toString("utf8")).toBe(content);
    for (const t of tokens) expect(t.top_logprobs.length).toBeLessThanOrEqual(2);
  });
});

async function call_logs(): Promise<{ stream: boolean; completion_tokens: number }[]> {
  const logs = await call<typeof recentLogsRoute>(
    o.filtration,
    "GET",
    "/management/deployments/recent-logs",
    {
      token: o.token,
    },
  );
  return logs.body.items;
}
