// What the `classifier` guardrail adds to a request: `classify()` (services/inference/classifier.ts)
// asking a guard-model deployment, p50 / p99 wall time per call.
// 1. Against a stub upstream that answers at once as each format's model does: the platform's own cost
//    per request (prompt built, HTTP round trip on loopback, answer read), without any model.
// 2. With --tiny, against a real llama.cpp worker of the project's generated tiny random model serving
//    the Llama Guard prompt (about 1,000 of its byte-level tokens): prompt processing on this CPU. A
//    real Llama Guard 3 1B reads the same prompt through a model about 10,000 times larger, so its
//    cost is the model's, measured on its own hardware; this run only shows the path works end to end.
// 3. With --endpoint (a replica's /v1 URL), --deployment and --format: a guard model you serve.
//   bun run bench guard-model-latency [--calls 300] [--tiny] [--endpoint URL --deployment NAME --format F]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { InFlightBalancer } from "#adapters/upstream/balancer.ts";
import { at } from "#scripts/checked.ts";
import { writeTinyGguf } from "#scripts/make-tiny-gguf.ts";
import { classify } from "#services/inference/classifier.ts";
import type { GuardFormat } from "#services/inference/guard-formats.ts";
import { InferenceMetrics } from "#services/inference/metrics.ts";
import { UpstreamClient } from "#services/inference/upstream-client.ts";
import { startLlamaWorker } from "../tests/fakes/support/tiny-worker.ts";

const { values } = parseArgs({
  options: {
    calls: { type: "string", default: "300" },
    tiny: { type: "boolean", default: false },
    endpoint: { type: "string" },
    deployment: { type: "string", default: "guard" },
    format: { type: "string", default: "llama-guard" },
  },
});
const calls = Number(values.calls);
const runtime = {
  upstream: new UpstreamClient(new InFlightBalancer(), new InferenceMetrics(), () => undefined),
};
const signal = new AbortController().signal;
const text = "Summarise the notes from our planning meeting in three bullet points, please.";

const chat = (content: string) => ({
  choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
});
const ANSWERS: Record<GuardFormat, unknown> = {
  label: chat("safe"),
  "llama-guard": chat("safe"),
  shieldgemma: chat("No"),
  "prompt-guard": { data: [{ label: "BENIGN", probs: [0.99, 0.01] }] },
};

const isFormat = (f: string): f is GuardFormat => Object.hasOwn(ANSWERS, f);

function percentile(sorted: readonly number[], p: number): number {
  return at(sorted, Math.min(sorted.length - 1, Math.floor(sorted.length * p)));
}

async function measure(format: GuardFormat, deployment: string, endpoint: string, n: number) {
  const config = { action: "block" as const, deployment, format, timeout_ms: 60_000 };
  const times: number[] = [];
  let last = "";
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const verdict = await classify(runtime, config, [endpoint], text, signal);
    times.push(performance.now() - t0);
    last = verdict.error ?? verdict.action;
  }
  times.sort((a, b) => a - b);
  console.log(
    `| ${format} | ${deployment} | ${n} | ${percentile(times, 0.5).toFixed(2)} | ${percentile(times, 0.99).toFixed(2)} | ${last} |`,
  );
}

async function main() {
  let format: GuardFormat = "label";
  const stub = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      await req.arrayBuffer();
      return Response.json(ANSWERS[format]);
    },
  });
  console.log(`load average: ${(await Bun.file("/proc/loadavg").text()).trim()}`);
  console.log("| format | upstream | calls | p50 ms | p99 ms | last verdict |\n|---|---|---:|---:|---:|---|");
  try {
    for (const f of Object.keys(ANSWERS).filter(isFormat)) {
      format = f;
      await measure(f, "stub", `http://127.0.0.1:${stub.port}/v1`, calls);
    }
  } finally {
    stub.stop(true);
  }
  if (values.tiny) await tinyWorker();
  if (values.endpoint) {
    const format = values.format;
    if (!isFormat(format)) throw new Error(`--format: one of ${Object.keys(ANSWERS).join(", ")}`);
    await measure(format, values.deployment, values.endpoint, calls);
  }
}

async function tinyWorker() {
  const dir = mkdtempSync(join(tmpdir(), "guard-latency-"));
  const modelPath = join(dir, "tiny-guard.gguf");
  writeTinyGguf(modelPath, { contextLength: 4096 });
  const worker = await startLlamaWorker(modelPath, "tiny-guard", { contextSize: 4096 });
  try {
    await measure("llama-guard", "tiny-guard", `${worker.url}/v1`, Math.min(calls, 20));
  } finally {
    await worker.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
