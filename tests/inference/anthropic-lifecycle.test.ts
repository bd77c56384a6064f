// POST /v1/messages is a translator around the one chat lifecycle: what reaches the replica is the
// chat request the Messages request means (checked field by field on a stub replica), and the
// lifecycle's steps (guardrails, logs, rate limits) apply with their refusals in Anthropic's shape.
// count_tokens falls back to a one-token completion's usage on an engine without a tokenizer endpoint.
import { afterAll, beforeAll, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { Value } from "@sinclair/typebox/value";
import { ErrorResponse, Message } from "#contracts/anthropic/messages.ts";
import { insertDeployment } from "../management/support.ts";
import { eventually } from "../orchestration/support.ts";
import { call } from "../support/app.ts";
import { createKey, type GatewayTest, loggedRequest, setPolicy, startGatewayTest } from "./support.ts";

let g: GatewayTest;
let client: Anthropic;

beforeAll(async () => {
  g = await startGatewayTest();
  client = new Anthropic({ apiKey: g.key, baseURL: g.url, maxRetries: 0 });
}, 30_000);
afterAll(() => g.close(), 30_000);

const post = (body: Record<string, unknown>, path = "/v1/messages") =>
  fetch(`${g.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": g.key, "anthropic-version": "2023-06-01" },
    body: JSON.stringify({
      model: g.model,
      max_tokens: 16,
      messages: [{ role: "user", content: "Hi" }],
      ...body,
    }),
  });

async function errorOf(response: Response) {
  const body: unknown = await response.json();
  if (!Value.Check(ErrorResponse, body))
    throw new Error(`not Anthropic's error body: ${JSON.stringify(body)}`);
  return body.error;
}

test("the chat request sent is what the Messages request means", async () => {
  g.stub.deltas = ["Sunny"];
  await client.messages.create({
    model: g.model,
    max_tokens: 20,
    system: [
      { type: "text", text: "You are a weather bot." },
      { type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } },
    ],
    stop_sequences: ["END"],
    metadata: { user_id: "user-7" },
    tools: [
      { name: "get_weather", description: "Weather", input_schema: { type: "object", properties: {} } },
    ],
    tool_choice: { type: "any", disable_parallel_tool_use: true },
    messages: [
      { role: "user", content: "Weather in Paris?" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me look." },
          { type: "tool_use", id: "toolu_a", name: "get_weather", input: { city: "Paris" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_a", content: "18C" },
          {
            type: "tool_result",
            tool_use_id: "toolu_b",
            content: [{ type: "text", text: "no data" }],
            is_error: true,
          },
          { type: "text", text: "And tomorrow?" },
        ],
      },
    ],
  });
  expect(g.stub.received.at(-1)).toEqual({
    model: g.model,
    max_tokens: 20,
    stream: false,
    stop: ["END"],
    user: "user-7",
    tools: [
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "Weather",
          parameters: { type: "object", properties: {} },
        },
      },
    ],
    tool_choice: "required",
    parallel_tool_calls: false,
    messages: [
      { role: "system", content: "You are a weather bot.\n\nBe brief." },
      { role: "user", content: "Weather in Paris?" },
      {
        role: "assistant",
        content: "Let me look.",
        tool_calls: [
          {
            id: "toolu_a",
            type: "function",
            function: { name: "get_weather", arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "toolu_a", content: "18C" },
      { role: "tool", tool_call_id: "toolu_b", content: "Error: no data" },
      { role: "user", content: "And tomorrow?" },
    ],
  });
  g.stub.deltas = undefined;
});

test("tool calls come back as tool_use blocks, streamed as input_json_delta; usage as input/output tokens", async () => {
  g.stub.toolCalls = [{ name: "get_weather", arguments: '{"city":"Oslo"}' }];
  const tools = [{ name: "get_weather", input_schema: { type: "object" as const, properties: {} } }];
  const message = await client.messages.create({
    model: g.model,
    max_tokens: 20,
    tools,
    messages: [{ role: "user", content: "Oslo?" }],
  });
  expect(message.stop_reason).toBe("tool_use");
  expect(message.content).toMatchObject([{ type: "tool_use", name: "get_weather", input: { city: "Oslo" } }]);
  expect(message.usage).toMatchObject({ input_tokens: 12, output_tokens: 5, cache_creation_input_tokens: 0 });

  const final = await client.messages
    .stream({ model: g.model, max_tokens: 20, tools, messages: [{ role: "user", content: "Oslo?" }] })
    .finalMessage();
  expect(final.stop_reason).toBe("tool_use");
  expect(final.content).toMatchObject([{ type: "tool_use", name: "get_weather", input: { city: "Oslo" } }]);
  g.stub.toolCalls = undefined;
});

test("count_tokens on an engine without a tokenizer endpoint: a one-token completion's prompt_tokens", async () => {
  const before = g.stub.received.length;
  const count = await client.messages.countTokens({
    model: g.model,
    messages: [{ role: "user", content: "Hi" }],
  });
  expect(count).toEqual({ input_tokens: 12 });
  expect(g.stub.received.length).toBe(before + 1);
  expect(g.stub.received.at(-1)).toMatchObject({ max_tokens: 1, stream: false });
});

test("guardrails apply, refused in Anthropic's shape; the call is logged as chat's", async () => {
  await setPolicy(g, "guardrails", { input: { pii: { action: "block" } } });
  const blocked = await eventually(async () => {
    const response = await post({ messages: [{ role: "user", content: "mail jane.doe@example.com" }] });
    return response.status === 400 ? response : undefined;
  }, 10_000);
  expect(await errorOf(blocked)).toEqual({
    type: "invalid_request_error",
    message: "the request was blocked by the pii guardrail",
  });
  await call(g.o.filtration, "DELETE", `/management/config/guardrails?deployment_id=${g.deploymentId}`, {
    token: g.o.token,
  });

  const ok = await eventually(async () => {
    const response = await post({ messages: [{ role: "user", content: "mail jane.doe@example.com" }] });
    return response.status === 200 ? response : undefined;
  }, 10_000);
  const requestId = ok.headers.get("x-request-id") as string;
  expect(Value.Check(Message, await ok.json())).toBe(true);
  expect(await loggedRequest(g, requestId)).toMatchObject({
    status: 200,
    model: g.model,
    deploymentId: g.deploymentId,
    totalTokens: 17,
  });
});

test("a rate limit is 429 rate_limit_error with Retry-After; the SDK's RateLimitError", async () => {
  await setPolicy(g, "rate_limit", { requests_per_minute: 1 });
  const limited = await eventually(async () => {
    const response = await post({});
    return response.status === 429 ? response : undefined;
  }, 10_000);
  expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  expect((await errorOf(limited)).type).toBe("rate_limit_error");
  let thrown: unknown;
  try {
    await client.messages.create({
      model: g.model,
      max_tokens: 4,
      messages: [{ role: "user", content: "Hi" }],
    });
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(Anthropic.RateLimitError);
});

test("a replica that fails, refuses or breaks midway: api_error, its refusal, an error event", async () => {
  await call(g.o.filtration, "DELETE", `/management/config/rate_limit?deployment_id=${g.deploymentId}`, {
    token: g.o.token,
  });
  const answered = async (body: Record<string, unknown> = {}) => {
    const response = await eventually(async () => {
      const r = await post(body);
      return r.status === 429 ? undefined : r;
    }, 10_000);
    return { status: response.status, error: await errorOf(response) };
  };
  try {
    g.stub.behaviour = "fail";
    expect(await answered()).toMatchObject({ status: 502, error: { type: "api_error" } });
    g.stub.behaviour = "refuse";
    expect(await answered()).toMatchObject({ status: 400, error: { type: "invalid_request_error" } });

    g.stub.behaviour = "die";
    const response = await post({ stream: true });
    expect(response.status).toBe(200);
    const events = (await response.text())
      .split("\n\n")
      .filter((e) => e.startsWith("event: "))
      .map((e) => ({
        event: e.slice(7, e.indexOf("\n")),
        data: JSON.parse(e.slice(e.indexOf("data: ") + 6)),
      }));
    expect(events[0]?.event).toBe("message_start");
    const last = events.at(-1);
    expect(last?.event).toBe("error");
    expect(Value.Check(ErrorResponse, last?.data)).toBe(true);
    expect(last?.data.error.type).toBe("api_error");
  } finally {
    g.stub.behaviour = "ok";
  }
});

test("a key scoped to other deployments is 403 permission_error; no ready replica is 529 overloaded_error", async () => {
  const other = await insertDeployment(g.o.t.app.db, g.o.orgId, {
    name: `other-${crypto.randomUUID().slice(0, 6)}`,
  });
  const scoped = new Anthropic({
    apiKey: await createKey(g.o, { deployment_ids: [other.id] }),
    baseURL: g.url,
    maxRetries: 0,
  });
  let thrown: unknown;
  try {
    await scoped.messages.create({
      model: g.model,
      max_tokens: 4,
      messages: [{ role: "user", content: "Hi" }],
    });
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(Anthropic.PermissionDeniedError);

  const cold = `cold-${crypto.randomUUID().slice(0, 6)}`;
  await insertDeployment(g.o.t.app.db, g.o.orgId, {
    name: cold,
    status: "DEPLOYING",
    replicas: [{ state: "STARTING", endpoint: null }],
  });
  const response = await post({ model: cold });
  expect(response.status).toBe(529);
  expect((await errorOf(response)).type).toBe("overloaded_error");
});
