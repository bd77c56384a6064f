// OpenTelemetry traces, sent as OTLP/HTTP JSON to a receiver in the test: one trace per inference
// request with a span per lifecycle step, GenAI attributes and no prompt text, the replica called in
// the same trace (its `traceparent`), a caller's trace continued; orchestration changes and reconciler
// passes traced too. The tracer provider belongs to this file (nothing global), shut down at the end.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Tracing } from "#server/telemetry.ts";
import { startTracing } from "#server/tracing-sdk.ts";
import { startReconciler } from "#services/orchestration/reconciler.ts";
import { chat, type GatewayTest, setPolicy, sseEvents, startGatewayTest } from "../inference/support.ts";
import { createPool } from "../orchestration/support.ts";
import { call } from "../support/app.ts";
import { until } from "../support/wait.ts";
import { type ReceivedSpan, startOtlpReceiver } from "./support.ts";

const SERVER = 2;
const CLIENT = 3;
let receiver: ReturnType<typeof startOtlpReceiver>;
let tracing: Tracing;
let g: GatewayTest;

beforeAll(async () => {
  receiver = startOtlpReceiver();
  tracing = startTracing({ url: receiver.url, serviceName: "gateway-under-test", exportDelayMs: 50 });
  g = await startGatewayTest({ tracing: { tracer: tracing.tracer, captureContent: false } });
  await setPolicy(g, "rate_limit", { requests_per_minute: 1000 });
  await setPolicy(g, "quota", { requests_per_day: 1000 });
  await setPolicy(g, "guardrails", {
    input: { pii: { action: "log" } },
    output: { pii: { action: "redact" } },
  });
}, 60_000);
afterAll(async () => {
  await tracing.shutdown();
  await g.close();
  receiver.stop();
}, 30_000);

/**
 * The trace's spans once its SERVER span is in: the request's span ends last, when the call is done,
 * which can be after its answer has reached the client (a CI run read the body and flushed before it
 * ended, and found no SERVER span).
 */
function traceOf(traceId: string): Promise<ReceivedSpan[]> {
  return until(
    async () => {
      await tracing.flush();
      const spans = receiver.spans.filter((s) => s.traceId === traceId);
      return spans.some((s) => s.kind === SERVER) && spans;
    },
    { what: `the SERVER span of trace ${traceId}` },
  );
}

const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) =>
  spans.filter((s) => s.parentSpanId === parent.spanId);

test("a chat completion is one trace: a SERVER span, a span per step, the replica's CLIENT span", async () => {
  const res = await chat(g, { max_tokens: 16, messages: [{ role: "user", content: "secret prompt words" }] });
  expect(res.status).toBe(200);
  await res.json();
  const seen = g.stub.traceparents.at(-1) as string;
  expect(seen).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  const [, traceId, parentId] = seen.split("-") as [string, string, string];

  const spans = await traceOf(traceId);
  const server = spans.find((s) => s.kind === SERVER) as ReceivedSpan;
  expect(server.name).toBe(`chat ${g.model}`);
  expect(server.parentSpanId).toBe("");
  expect(server.resource["service.name"]).toBe("gateway-under-test");
  expect(server.attributes).toMatchObject({
    "gen_ai.operation.name": "chat",
    "gen_ai.request.model": g.model,
    "gen_ai.response.model": g.model,
    "gen_ai.request.max_tokens": 16,
    "gen_ai.usage.input_tokens": 12,
    "gen_ai.usage.output_tokens": 5,
    "gen_ai.response.finish_reasons": ["stop"],
    "llm.deployment.id": g.deploymentId,
  });
  const steps = childrenOf(spans, server).map((s) => s.name);
  expect(steps.sort()).toEqual(
    [
      "key and context",
      "rate limits",
      "quota",
      "input guardrails",
      "output guardrails",
      `chat ${g.model}`,
    ].sort(),
  );
  const client = spans.find((s) => s.kind === CLIENT) as ReceivedSpan;
  // The replica saw this trace, with the CLIENT span as its parent.
  expect(client.spanId).toBe(parentId);
  expect(client.attributes).toMatchObject({
    "server.address": "127.0.0.1",
    "server.port": Number(new URL(g.stub.url).port),
    "http.response.status_code": 200,
  });
  expect(JSON.stringify(spans)).not.toContain("secret prompt words");
});

test("an incoming traceparent is continued, through a streamed answer to the replica", async () => {
  const callerTrace = crypto.randomUUID().replace(/-/g, "");
  const callerSpan = "00f067aa0ba902b7";
  const res = await fetch(`${g.url}/v1/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${g.key}`,
      traceparent: `00-${callerTrace}-${callerSpan}-01`,
    },
    body: JSON.stringify({ model: g.model, stream: true, messages: [{ role: "user", content: "Hi" }] }),
  });
  expect((await sseEvents(res)).at(-1)).toBe("[DONE]");
  expect(g.stub.traceparents.at(-1)).toStartWith(`00-${callerTrace}-`);
  const spans = await traceOf(callerTrace);
  const server = spans.find((s) => s.kind === SERVER) as ReceivedSpan;
  expect(server.parentSpanId).toBe(callerSpan);
  expect(server.attributes["gen_ai.request.stream"]).toBe(true);
  expect(server.attributes["gen_ai.usage.output_tokens"]).toBe(g.stub.chunks);
  expect(server.attributes["gen_ai.response.time_to_first_chunk"]).toBeGreaterThan(0);
  expect(spans.filter((s) => s.kind === SERVER)).toHaveLength(1);
});

test("with the operator's opt-in, prompts and answers go on the span", async () => {
  g.runtime.tracing = { tracer: tracing.tracer, captureContent: true };
  try {
    const res = await chat(g, { messages: [{ role: "user", content: "opted-in words" }] });
    expect(res.status).toBe(200);
    await res.json();
  } finally {
    g.runtime.tracing = { tracer: tracing.tracer, captureContent: false };
  }
  const [, traceId] = (g.stub.traceparents.at(-1) as string).split("-") as [string, string];
  const server = (await traceOf(traceId)).find((s) => s.kind === SERVER) as ReceivedSpan;
  expect(String(server.attributes["gen_ai.input.messages"])).toContain("opted-in words");
  expect(String(server.attributes["gen_ai.output.messages"])).toContain("Hello from the stub.");
});

test("a refused request ends its span as an error with its code", async () => {
  const res = await chat(g, {}, "sk-not-a-key");
  expect(res.status).toBe(401);
  await tracing.flush();
  const failed = receiver.spans.findLast((s) => s.kind === SERVER) as ReceivedSpan;
  expect(failed.status.code).toBe(2);
  expect(failed.attributes["error.type"]).toBe("invalid_api_key");
});

test("orchestration: pool and deployment changes and reconciler passes are spans", async () => {
  const pool = await createPool(g.o);
  const terminated = await call(g.o.orchestration, "POST", "/deployment/terminate", {
    token: g.o.token,
    body: { deployment_id: g.deploymentId },
  });
  expect(terminated.status).toBe(200);
  const reconciler = startReconciler(g.o.t.app, { intervalMs: 60_000 });
  try {
    await reconciler.pass();
  } finally {
    await reconciler.stop();
  }
  await tracing.flush();
  const names = receiver.spans.map((s) => s.name);
  expect(names).toContain("pool create");
  expect(names).toContain("deployment terminate");
  const terminate = receiver.spans.find((s) => s.name === "deployment terminate") as ReceivedSpan;
  expect(terminate.attributes["llm.deployment.id"]).toBe(g.deploymentId);
  const pass = receiver.spans.findLast((s) => s.name === "reconciler pass") as ReceivedSpan;
  const passChildren = childrenOf(receiver.spans, pass);
  expect(passChildren.map((s) => s.attributes["llm.deployment.id"])).toContain(g.deploymentId);
  expect(pool.pool_id).toBeString();
}, 30_000);
