// The LLM series after a known set of requests through the inference gateway: exactly those numbers,
// and every gateway's /metrics passes `promtool check metrics`.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chat, type GatewayTest, setPolicy, sseEvents, startGatewayTest } from "../inference/support.ts";
import { gatewayHandler } from "../support/app.ts";
import { within } from "../support/wait.ts";
import { parseMetrics, promtool, type Sample, sampleSum } from "./support.ts";

let g: GatewayTest;
let samples: Sample[];
let inferencePage: string;
let streamMs: number;

const gap = 40;
const chunks = 4;

beforeAll(async () => {
  g = await startGatewayTest();
  await setPolicy(g, "rate_limit", { requests_per_minute: 4 });
  await setPolicy(g, "guardrails", { input: { pii: { action: "block" } } });

  // 1. a JSON answer
  expect((await chat(g)).status).toBe(200);
  // 2. a stream that takes at least chunks × gap ms to its last byte
  g.stub.gapMs = gap;
  g.stub.chunks = chunks;
  const started = performance.now();
  const stream = await chat(g, { stream: true });
  expect(stream.status).toBe(200);
  expect((await sseEvents(stream)).at(-1)).toBe("[DONE]");
  streamMs = performance.now() - started;
  g.stub.gapMs = 0;
  // 3. blocked by the input guardrail
  const blocked = await chat(g, { messages: [{ role: "user", content: "mail me at jane.doe@example.com" }] });
  expect(blocked.status).toBe(400);
  // 4. embeddings: the stub has none, so the replica answers 404, which reaches the caller as it is
  //    (a replica's refusal, upstream_refused; not counted as an upstream failure)
  const embeddings = await fetch(`${g.url}/v1/embeddings`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${g.key}` },
    body: JSON.stringify({ model: g.model, input: "hello" }),
  });
  expect(embeddings.status).toBe(404);
  // 5. the fifth request of the minute: 429
  expect((await chat(g)).status).toBe(429);
  // 6. a bad key: no deployment known, counted with deployment=""
  expect((await chat(g, {}, "sk-wrong")).status).toBe(401);

  // HTTP metrics are taken once the response has gone: the six answers above.
  await within(g.httpMetrics.observedAtLeast(6), 5000, "the six answers counted");
  inferencePage = await (await fetch(`${g.url}/metrics`)).text();
  samples = parseMetrics(inferencePage);
}, 60_000);
afterAll(() => g.close(), 30_000);

const deployment = () => ({ deployment: g.model, deployment_id: g.deploymentId });

test("requests by deployment, operation, outcome and error code", () => {
  const count = (labels: Record<string, string>) => sampleSum(samples, "llm_requests_total", labels);
  expect(count({ ...deployment(), operation: "chat", outcome: "ok", error_code: "" })).toBe(2);
  expect(count({ ...deployment(), operation: "chat", error_code: "content_policy_violation" })).toBe(1);
  expect(count({ ...deployment(), operation: "chat", error_code: "rate_limit_exceeded" })).toBe(1);
  expect(
    count({ ...deployment(), operation: "embeddings", outcome: "error", error_code: "upstream_refused" }),
  ).toBe(1);
  expect(count({ deployment: "", deployment_id: "", error_code: "invalid_api_key" })).toBe(1);
  expect(count({})).toBe(6);
  // No key, prefix or user text in any label.
  expect(inferencePage).not.toContain(g.key.slice(0, 12));
  expect(inferencePage).not.toContain("jane.doe");
});

test("input and output tokens per deployment, as the stub reported them", () => {
  const tokens = (type: string, suffix: string) =>
    sampleSum(samples, `gen_ai_client_token_usage_${suffix}`, { ...deployment(), operation: "chat", type });
  // The JSON answer: 12 + 5; the stream: 12 + `chunks` (the gateway asks the replica for usage).
  expect(tokens("input", "sum")).toBe(24);
  expect(tokens("input", "count")).toBe(2);
  expect(tokens("output", "sum")).toBe(5 + chunks);
  expect(tokens("output", "count")).toBe(2);
});

test("a stream's duration runs to its last byte, in the LLM and the HTTP histograms", () => {
  const floor = (chunks * gap) / 1000;
  const llm = { ...deployment(), operation: "chat", outcome: "ok" };
  expect(sampleSum(samples, "gen_ai_server_request_duration_seconds_count", llm)).toBe(2);
  expect(sampleSum(samples, "gen_ai_server_request_duration_seconds_sum", llm)).toBeGreaterThanOrEqual(floor);
  // The stream alone is over `floor` (0.16 s), so at most the JSON answer sits in the 0.1 s bucket.
  expect(
    sampleSum(samples, "gen_ai_server_request_duration_seconds_bucket", { ...llm, le: "0.1" }),
  ).toBeLessThanOrEqual(1);
  const http = { gateway: "inference", method: "POST", route: "/v1/chat/completions", status: "200" };
  expect(sampleSum(samples, "http_request_duration_seconds_count", http)).toBe(2);
  const httpSum = sampleSum(samples, "http_request_duration_seconds_sum", http);
  expect(httpSum).toBeGreaterThanOrEqual(floor);
  expect(httpSum).toBeLessThanOrEqual((streamMs + 1000) / 1000);
  expect(sampleSum(samples, "gen_ai_server_time_to_first_token_seconds_count", deployment())).toBe(2);
});

test("upstream latency by replica, rate-limit and guardrail decisions, nothing left in flight", () => {
  const replica = new URL(g.stub.url).host;
  expect(
    sampleSum(samples, "llm_upstream_duration_seconds_count", { ...deployment(), replica, outcome: "ok" }),
  ).toBe(2);
  expect(sampleSum(samples, "llm_upstream_duration_seconds_count", { replica, outcome: "error" })).toBe(1);
  const admission = (decision: string) =>
    sampleSum(samples, "llm_admission_decisions_total", { ...deployment(), check: "rate_limit", decision });
  expect(admission("allow")).toBe(4);
  expect(admission("reject")).toBe(1);
  const guardrail = (scanner: string, action: string) =>
    sampleSum(samples, "llm_guardrail_decisions_total", { ...deployment(), stage: "input", scanner, action });
  expect(guardrail("none", "allow")).toBe(2);
  expect(guardrail("pii", "block")).toBe(1);
  expect(sampleSum(samples, "llm_requests_in_flight", deployment())).toBe(0);
});

test("replicas wanted and ready per deployment, on the orchestration gateway", async () => {
  const res = await g.o.orchestration(new Request("http://localhost/metrics"));
  const page = parseMetrics(await res.text());
  expect(sampleSum(page, "llm_deployment_replicas_wanted", deployment())).toBe(1);
  expect(sampleSum(page, "llm_deployment_replicas_ready", deployment())).toBe(1);
});

test("promtool check metrics passes on every gateway's /metrics", async () => {
  const pages: Record<string, string> = { inference: inferencePage };
  pages.orchestration = await (await g.o.orchestration(new Request("http://localhost/metrics"))).text();
  pages.filtration = await (await g.o.filtration(new Request("http://localhost/metrics"))).text();
  const dashboard = await gatewayHandler(g.o.t.app, "dashboard");
  pages.dashboard = await (await dashboard.handle(new Request("http://localhost/metrics"))).text();
  for (const [name, page] of Object.entries(pages)) {
    const verdict = await promtool(page);
    expect({ name, ...verdict }).toEqual({ name, code: 0, output: "" });
  }
  expect(pages.filtration).toContain("process_start_time_seconds ");
});
