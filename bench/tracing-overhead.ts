// What recording one inference request costs in this process, apart from any I/O: the metrics alone
// (tracing off: no tracer), the OpenTelemetry API's no-op tracer, and the SDK recording every span
// into a processor that drops them (the exporter's network cost is not in it; bench/gateway.ts
// --tracing has that). Each lifecycle of services/inference/observe.ts: resolution, four steps, two
// admission decisions, first token, finish.
//
//   bun run bench tracing-overhead [--requests 200000]
import { parseArgs } from "node:util";
import { trace } from "@opentelemetry/api";
import { AlwaysOnSampler, NoopSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { InferenceMetrics } from "#services/inference/metrics.ts";
import { observeRequest } from "#services/inference/observe.ts";
import type { InferenceContext, InferenceLogEntry } from "#services/inference/port.ts";
import type { InferenceRuntime, InferenceTracing } from "#services/inference/runtime.ts";

const { values } = parseArgs({ options: { requests: { type: "string", default: "200000" } } });
const requests = Number(values.requests);

const deploymentId = "00000000-0000-0000-0000-000000000001";
const context: InferenceContext = {
  orgId: "org",
  apiKeyId: "key",
  keyPrefix: "sk-",
  deployment: { id: deploymentId, name: "bench" },
  endpoints: [],
  rateLimit: undefined,
  quota: undefined,
  guardrails: undefined,
  rag: undefined,
  prompt: undefined,
};
const usage = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 };
// The observer reads only the guardrails' decisions of the entry; the rest is a plausible answer.
const entry: InferenceLogEntry = {
  request_id: "bench",
  org_id: "org",
  deployment_id: deploymentId,
  api_key_id: "key",
  key_prefix: "sk-",
  model: "bench",
  status: 200,
  error_code: undefined,
  ...usage,
  latency_ms: 1,
  cost: 0,
  stream: false,
  guardrails: { input: { action: "allow", findings: [] } },
};

function run(tracing: InferenceTracing | undefined): number {
  const runtime = { metrics: new InferenceMetrics(), tracing } as unknown as InferenceRuntime;
  const once = () => {
    const o = observeRequest(runtime, { model: "bench", operation: "chat", stream: false });
    o.step("key and context", () => 1);
    o.resolved(context);
    o.step("rate limits", () => 1);
    o.admission("rate_limit", true);
    o.step("quota", () => 1);
    o.admission("quota", true);
    o.step("input guardrails", () => 1);
    o.firstToken();
    o.finish(entry, usage, undefined);
  };
  for (let i = 0; i < 20_000; i++) once(); // warm up
  const started = performance.now();
  for (let i = 0; i < requests; i++) once();
  return ((performance.now() - started) * 1000) / requests;
}

const sdk = new TracerProvider({ sampler: new AlwaysOnSampler(), spanProcessors: [new NoopSpanProcessor()] });
const rows: [string, number][] = [
  ["metrics only (tracing off: the default)", run(undefined)],
  [
    "no-op API tracer (trace.getTracer without a provider)",
    run({ tracer: trace.getTracer("bench"), captureContent: false }),
  ],
  [
    "SDK tracer, every span recorded, then dropped",
    run({ tracer: sdk.getTracer("bench"), captureContent: false }),
  ],
];
console.log(`# observation cost per request, ${requests.toLocaleString("en")} requests each\n`);
console.log("| setup | µs per request |\n|---|---:|");
for (const [name, us] of rows) console.log(`| ${name} | ${us.toFixed(2)} |`);
