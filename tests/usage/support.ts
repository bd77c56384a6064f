// Generated inference logs for the overview's tests and benchmark: a seeded, reproducible mix of
// deployments, keys, statuses, tokens, latencies, times to first token and costs, spread over a span of
// time ending now.

import type { InferenceLogEntryInput } from "#contracts/internal/inference-log.ts";
import { rng } from "#scripts/make-tiny-gguf.ts";

/** mulberry32: a small seeded generator, so a failing case can be run again as it was. */
export const seeded = rng;

export interface GenerateOptions {
  orgId: string | null;
  deploymentIds: (string | null)[];
  apiKeyIds: (string | null)[];
  count: number;
  /** The entries are spread evenly over [now - spanMs, now). */
  spanMs: number;
  now: number;
  seed?: number;
}

/** About 5 % refused or failed, in four kinds. */
const statuses: number[] = [...Array(76).fill(200), 400, 429, 429, 502];

export function generateLogs(o: GenerateOptions): InferenceLogEntryInput[] {
  const random = seeded(o.seed ?? 1);
  const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)] as T;
  return Array.from({ length: o.count }, (_, i) => {
    const status = pick(statuses);
    const ok = status < 400;
    const stream = random() < 0.5;
    // Log-normal latencies (median about 400 ms, a long tail into seconds); refusals are quick.
    const gauss = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    const latency = Math.round(Math.exp((ok ? 6 : 2.5) + (ok ? 0.9 : 1.2) * gauss) * 100) / 100;
    const prompt = ok || status === 502 ? 10 + Math.floor(random() * 500) : 0;
    const completion = ok ? Math.floor(random() * 800) : 0;
    return {
      request_id: `gen-${o.seed ?? 1}-${i}`,
      org_id: o.orgId,
      deployment_id: pick(o.deploymentIds),
      api_key_id: pick(o.apiKeyIds),
      key_prefix: "sk-gen",
      model: "generated",
      status,
      error_code: ok ? null : `e${status}`,
      prompt_tokens: prompt,
      completion_tokens: completion,
      latency_ms: latency,
      ttft_ms: ok ? Math.round(latency * (stream ? 0.05 + 0.3 * random() : 1) * 100) / 100 : null,
      stream,
      cost: ok ? (prompt * 0.5 + completion * 1.5) / 1_000_000 : 0,
      created_at: new Date(
        o.now - o.spanMs + Math.floor(((i + random()) / o.count) * o.spanMs),
      ).toISOString(),
    };
  });
}
