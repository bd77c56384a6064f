// Autoscaling a `local` deployment of the tiny model (min_replicas 0, max_replicas 3) under a ramp of
// requests per second stepped up and down: the time to first token of the first request from zero
// replicas, then per step the requests sent, failed (target 0) and p50/p99 latency, and the replicas
// over time (wanted/ready, sampled each second). Runs the whole platform in this process on a fresh
// DATA_DIR; every request goes through the inference gateway as streaming chat.
//
//   bun bench/autoscale.ts [--steps 1,2,4,8,4,2,1] [--step-s 20] [--target 1] [--max-tokens 1024]
//                          [--up-delay-s 2] [--down-delay-s 10]
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type Static, Type as T } from "@sinclair/typebox";
import { at } from "#scripts/checked.ts";
import { writeTinyGguf } from "#scripts/make-tiny-gguf.ts";
import { startBenchPlatform } from "./in-process-platform.ts";
import { createBenchKey } from "./platform-api.ts";

const { values } = parseArgs({
  options: {
    steps: { type: "string", default: "1,2,4,8,4,2,1" },
    "step-s": { type: "string", default: "20" },
    target: { type: "string", default: "1" },
    "max-tokens": { type: "string", default: "1024" },
    "up-delay-s": { type: "string", default: "2" },
    "down-delay-s": { type: "string", default: "10" },
  },
});
const steps = values.steps.split(",").map(Number);
const stepMs = Number(values["step-s"]) * 1000;
const maxTokens = Number(values["max-tokens"]);
const downDelayS = Number(values["down-delay-s"]);

const bench = await startBenchPlatform({
  services: ["filtration", "orchestration", "inference"],
  prefix: "llmp-bench-autoscale-",
});
const { api, dataDir } = bench;
const filtration = bench.url("filtration");
const orchestration = bench.url("orchestration");
const inference = bench.url("inference");

const Status = T.Object({
  status: T.String(),
  failure_reason: T.Union([T.String(), T.Null()]),
  replicas: T.Number(),
  scaled_to_zero: T.Boolean(),
  endpoints: T.Array(T.String()),
  observed_replicas: T.Array(T.Unknown()),
  transitions: T.Array(
    T.Object({
      at: T.String(),
      reason: T.Union([T.String(), T.Null()]),
      replicas: T.Optional(T.Object({ from: T.Number(), to: T.Number() })),
    }),
  ),
});
type Status = Static<typeof Status>;

/** One step of the ramp as the report lists it. */
interface StepRow {
  step: number;
  rps: number;
  sent: number;
  failed: number;
  p50_ms: number;
  p99_ms: number;
  replicas_ready_min: number;
  replicas_ready_max: number;
}

const quantile = (sorted: number[], q: number) =>
  sorted.length === 0 ? Number.NaN : at(sorted, Math.min(sorted.length - 1, Math.floor(q * sorted.length)));

let deploymentId: string | undefined;
let token = "";
try {
  token = await bench.signIn();
  const status = () => api(Status, orchestration, `/deployment/status/${deploymentId}`, undefined, token);
  const until = async (check: (d: Status) => boolean, what: string, ms = 300_000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const d = await status();
      if (d.status === "FAILED") throw new Error(`deployment failed: ${d.failure_reason}`);
      if (check(d)) return d;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await Bun.sleep(100);
    }
  };
  const model = join(dataDir, "tiny.gguf");
  // A tiny model that never ends a reply early, so every answer is max_tokens long.
  writeTinyGguf(model, { eogBias: -30 });
  const poolId = await bench.createBenchPool(token);
  deploymentId = await bench.deployBench(poolId, model, { parallel: 4, threads: 1 }, token);
  const key = await createBenchKey(filtration, token);
  await api(
    T.Unknown(),
    filtration,
    "/management/config/autoscaling",
    {
      deployment_id: deploymentId,
      config: {
        min_replicas: 0,
        max_replicas: 3,
        target_in_flight_per_replica: Number(values.target),
        scale_up_delay_s: Number(values["up-delay-s"]),
        scale_down_delay_s: downDelayS,
        cold_start_timeout_s: 120,
        max_queued: 500,
      },
    },
    token,
  );
  await until(
    (d) => d.status === "RUNNING" && d.scaled_to_zero && d.observed_replicas.length === 0,
    "zero replicas",
  );
  console.log(`scaled to zero after deploy; scale_down_delay_s ${downDelayS}`);

  interface Outcome {
    ok: boolean;
    status: number;
    ttftMs: number;
    totalMs: number;
  }
  async function request(): Promise<Outcome> {
    const t0 = performance.now();
    try {
      const res = await fetch(`${inference}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({
          model: "bench",
          messages: [{ role: "user", content: "Tell me a story." }],
          max_tokens: maxTokens,
          stream: true,
        }),
      });
      if (!res.ok || !res.body) {
        await res.text();
        return { ok: false, status: res.status, ttftMs: Number.NaN, totalMs: performance.now() - t0 };
      }
      let ttftMs = Number.NaN;
      let text = "";
      const decoder = new TextDecoder();
      const reader = res.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        if (Number.isNaN(ttftMs) && text.includes('"content"')) ttftMs = performance.now() - t0;
      }
      const ok = text.includes("data: [DONE]") && !text.includes('"error"');
      return { ok, status: res.status, ttftMs, totalMs: performance.now() - t0 };
    } catch {
      return { ok: false, status: 0, ttftMs: Number.NaN, totalMs: performance.now() - t0 };
    }
  }

  // Replicas over time, sampled each second from the status API.
  const benchStart = performance.now();
  const timeline: { t: number; wanted: number; ready: number }[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const d = await status().catch(() => undefined);
      if (d)
        timeline.push({
          t: Math.round((performance.now() - benchStart) / 1000),
          wanted: d.replicas,
          ready: d.endpoints.length,
        });
      await Bun.sleep(1000);
    }
  })();

  const first = await request();
  console.log(
    `first request from zero replicas: ${first.ok ? "ok" : `FAILED (${first.status})`}, time to first token ${(first.ttftMs / 1000).toFixed(2)} s, total ${(first.totalMs / 1000).toFixed(2)} s`,
  );

  const rows: StepRow[] = [];
  const all: Promise<Outcome>[] = [];
  for (const [i, rps] of steps.entries()) {
    const stepStart = performance.now();
    const sent: Promise<Outcome>[] = [];
    for (let n = 0; n < Math.round((rps * stepMs) / 1000); n++) {
      const due = stepStart + (n * 1000) / rps;
      const wait = due - performance.now();
      if (wait > 0) await Bun.sleep(wait);
      sent.push(request());
    }
    const left = stepStart + stepMs - performance.now();
    if (left > 0) await Bun.sleep(left);
    all.push(...sent);
    const outcomes = await Promise.all(sent);
    const latencies = outcomes
      .filter((o) => o.ok)
      .map((o) => o.totalMs)
      .sort((a, b) => a - b);
    const during = timeline.filter((s) => s.t >= (stepStart - benchStart) / 1000);
    const row: StepRow = {
      step: i + 1,
      rps,
      sent: outcomes.length,
      failed: outcomes.filter((o) => !o.ok).length,
      p50_ms: Math.round(quantile(latencies, 0.5)),
      p99_ms: Math.round(quantile(latencies, 0.99)),
      replicas_ready_min: Math.min(...during.map((s) => s.ready)),
      replicas_ready_max: Math.max(...during.map((s) => s.ready)),
    };
    rows.push(row);
    console.log(JSON.stringify(row));
  }
  // Idle after the ramp: back to zero once scale_down_delay_s has passed.
  const idleStart = performance.now();
  const zero = await until((d) => d.scaled_to_zero, "back to zero", (downDelayS + 60) * 1000).catch(
    () => undefined,
  );
  console.log(
    zero
      ? `back to zero replicas ${((performance.now() - idleStart) / 1000).toFixed(1)} s after the last step`
      : "did not go back to zero",
  );
  sampling = false;
  await sampler;
  const outcomes = await Promise.all(all);
  // Runs of equal samples: "0-4 s 1/0" is one wanted, none ready from second 0 to 4.
  const runs: { from: number; to: number; wanted: number; ready: number }[] = [];
  for (const s of timeline) {
    const last = runs.at(-1);
    if (last && last.wanted === s.wanted && last.ready === s.ready) last.to = s.t;
    else runs.push({ from: s.t, to: s.t, wanted: s.wanted, ready: s.ready });
  }
  console.log("replicas over time (seconds: wanted/ready):");
  console.log(runs.map((r) => `${r.from}-${r.to} s ${r.wanted}/${r.ready}`).join(", "));
  const decisions = (await status()).transitions.filter((t) => t.replicas);
  console.log("decisions:");
  for (const t of decisions)
    console.log(`  ${t.at.slice(11, 19)} ${t.replicas?.from}→${t.replicas?.to} ${t.reason}`);
  console.log(
    JSON.stringify({
      first_request_ttft_s: Number((first.ttftMs / 1000).toFixed(2)),
      requests: outcomes.length + 1,
      failed: outcomes.filter((o) => !o.ok).length + (first.ok ? 0 : 1),
      steps: rows,
      max_replicas_ready: Math.max(...timeline.map((s) => s.ready)),
    }),
  );
} finally {
  if (deploymentId) await bench.terminate(deploymentId, token);
  await bench.stop();
}
