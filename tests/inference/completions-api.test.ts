// POST /v1/completions: the legacy text-completions API, translated to the replica's chat endpoint,
// through the same lifecycle as chat (key, guardrails, logs), read with the official openai SDK.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type OpenAI from "openai";
import type { OpenAIError } from "#contracts/openai/error.ts";
import { call, jsonBody } from "../support/app.ts";
import { type GatewayTest, loggedRequest, openAiClient, setPolicy, startGatewayTest } from "./support.ts";

let g: GatewayTest;
let client: OpenAI;

beforeAll(async () => {
  g = await startGatewayTest();
  client = openAiClient(g);
}, 30_000);
afterAll(() => g.close(), 30_000);

const post = (body: Record<string, unknown>, key = g.key) =>
  fetch(`${g.url}/v1/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: g.model, prompt: "Say hi", ...body }),
  });

test("a completion is the replica's chat answer as text_completion; the prompt went as one user message", async () => {
  g.stub.deltas = ["Hi", " there"];
  const answer = await client.completions.create({
    model: g.model,
    prompt: "Say hi",
    max_tokens: 5,
    temperature: 0.5,
    stop: ["\n"],
    seed: 7,
  });
  expect(answer.object).toBe("text_completion");
  expect(answer.id).toStartWith("cmpl-");
  expect(answer.model).toBe(g.model);
  expect(answer.choices).toEqual([{ index: 0, text: "Hi there", logprobs: null, finish_reason: "stop" }]);
  expect(answer.usage).toEqual({ prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 });
  const sent = g.stub.received.at(-1) as Record<string, unknown>;
  expect(sent.messages).toEqual([{ role: "user", content: "Say hi" }]);
  expect(sent).toMatchObject({ max_tokens: 5, temperature: 0.5, stop: ["\n"], seed: 7 });
  g.stub.deltas = undefined;
});

test("max_tokens defaults to 16, as OpenAI's; an array of one prompt is accepted", async () => {
  await client.completions.create({ model: g.model, prompt: ["One prompt"] });
  const sent = g.stub.received.at(-1) as Record<string, unknown>;
  expect(sent.max_tokens).toBe(16);
  expect(sent.messages).toEqual([{ role: "user", content: "One prompt" }]);
});

test("streamed: text_completion chunks with the deltas, the finish reason, usage when asked, then [DONE]", async () => {
  g.stub.deltas = ["Hel", "lo"];
  const stream = await client.completions.create({
    model: g.model,
    prompt: "Say hello",
    stream: true,
    stream_options: { include_usage: true },
  });
  const texts: string[] = [];
  let finish: string | null | undefined;
  let usage: OpenAI.CompletionUsage | undefined;
  for await (const chunk of stream) {
    expect(chunk.object).toBe("text_completion");
    for (const choice of chunk.choices) {
      texts.push(choice.text);
      if (choice.finish_reason) finish = choice.finish_reason;
    }
    if (chunk.usage) usage = chunk.usage;
  }
  expect(texts.join("")).toBe("Hello");
  expect(finish).toBe("stop");
  expect(usage).toEqual({ prompt_tokens: 12, completion_tokens: 2, total_tokens: 14 });

  const raw = await (await post({ stream: true })).text();
  expect(raw.trim().endsWith("data: [DONE]")).toBe(true);
  expect(raw).not.toContain('"usage"');
  g.stub.deltas = undefined;
});

test("what the chat endpoint cannot do is refused with 400 naming the param", async () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ prompt: ["a", "b"] }, "prompt"],
    [{ suffix: "end" }, "suffix"],
    [{ echo: true }, "echo"],
    [{ logprobs: 2 }, "logprobs"],
    [{ n: 2 }, "n"],
  ];
  const before = g.stub.received.length;
  for (const [body, param] of cases) {
    const res = await post(body);
    expect(res.status).toBe(400);
    const error = (await jsonBody<OpenAIError>(res)).error;
    expect(error.type).toBe("invalid_request_error");
    expect(error.param).toStartWith(param);
  }
  expect(g.stub.received.length).toBe(before);
});

test("the lifecycle is chat's: a bad key is 401, an input guardrail blocks naming prompt, and the call is logged", async () => {
  const bad = await post({}, "sk-not-a-key");
  expect(bad.status).toBe(401);

  await setPolicy(g, "guardrails", { input: { pii: { action: "block" } } });
  g.clock.advance(1100);
  const blocked = await post({ prompt: "mail me at jane.doe@example.com" });
  expect(blocked.status).toBe(400);
  const error = (await jsonBody<OpenAIError>(blocked)).error;
  expect(error).toMatchObject({ code: "content_policy_violation", param: "prompt" });
  await call(g.o.filtration, "DELETE", `/management/config/guardrails?deployment_id=${g.deploymentId}`, {
    token: g.o.token,
  });
  g.clock.advance(1100);

  const ok = await post({ max_tokens: 3 });
  const requestId = ok.headers.get("x-request-id") as string;
  await ok.json();
  const logged = await loggedRequest(g, requestId);
  expect(logged).toMatchObject({
    status: 200,
    model: g.model,
    deploymentId: g.deploymentId,
    totalTokens: 17,
  });
});
