// Issue #34's figures beside bench/gateway.ts's throughput rows, in functions of their own:
// - the latency a gateway adds at ONE connection (wrk -c1, one request at a time) over the bare Bun
//   proxy's, measured in the same round, against a stub answering at once and one answering after
//   20 ms (how independent gateway comparisons measure added latency);
// - the JavaScriptCore collections of a platform process's main thread per 10,000 requests, counted
//   from the lines `BUN_JSC_logGC=1` writes to its stderr ("=> EdenCollection", "=> FullCollection").
import { existsSync, readFileSync } from "node:fs";
import { at } from "#scripts/checked.ts";

export interface LatencyTarget {
  name: string;
  url: string;
  body: string;
  headers: Record<string, string>;
}

interface Percentiles {
  p50: number;
  p99: number;
  requests: number;
  errors: number;
}

export interface OneConnectionPlan {
  /** The stub's answer delay, ms. */
  delayMs: number;
  bare: LatencyTarget;
  gateways: LatencyTarget[];
}

type OneConnectionWrk = (
  url: string,
  body: string,
  headers: Record<string, string>,
  seconds: number,
  connections: number,
) => Promise<Percentiles>;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const mid = s.length >> 1;
  return s.length % 2 ? at(s, mid) : (at(s, mid - 1) + at(s, mid)) / 2;
};

/**
 * Per stub delay and round: the bare proxy, then each gateway, one connection each for `seconds`;
 * the added p50 / p99 is the gateway's minus the bare proxy's of the same round, medians over rounds.
 * Returns the lines to print (targets: p50 ≤ 0.2 ms, p99 ≤ 1 ms added).
 */
export async function oneConnectionLatency(
  plans: OneConnectionPlan[],
  options: { rounds: number; seconds: number; wrk: OneConnectionWrk; log: (line: string) => void },
): Promise<string[]> {
  const lines: string[] = [];
  for (const plan of plans) {
    const added = new Map<string, { p50: number[]; p99: number[]; errors: number }>();
    const bare: { p50: number[]; p99: number[] } = { p50: [], p99: [] };
    for (let round = 0; round < options.rounds; round++) {
      const base = await runOne(plan.bare, options);
      bare.p50.push(base.p50);
      bare.p99.push(base.p99);
      options.log(
        `one connection, stub +${plan.delayMs} ms, round ${round + 1}: ${plan.bare.name} p50 ${base.p50.toFixed(3)} / p99 ${base.p99.toFixed(3)} ms`,
      );
      for (const gateway of plan.gateways) {
        const r = await runOne(gateway, options);
        const row = added.get(gateway.name) ?? { p50: [], p99: [], errors: 0 };
        row.p50.push(r.p50 - base.p50);
        row.p99.push(r.p99 - base.p99);
        row.errors += r.errors;
        added.set(gateway.name, row);
        options.log(
          `one connection, stub +${plan.delayMs} ms, round ${round + 1}: ${gateway.name} p50 ${r.p50.toFixed(3)} / p99 ${r.p99.toFixed(3)} ms`,
        );
      }
    }
    lines.push(
      `stub answering after ${plan.delayMs} ms, bare proxy p50 ${median(bare.p50).toFixed(3)} ms, p99 ${median(bare.p99).toFixed(3)} ms (median of ${options.rounds}):`,
    );
    for (const [name, row] of added) {
      const p50 = median(row.p50);
      const p99 = median(row.p99);
      lines.push(
        `  ${name}: added p50 ${p50.toFixed(3)} ms (target ≤ 0.2: ${p50 <= 0.2 ? "PASS" : "FAIL"}), ` +
          `p99 ${p99.toFixed(3)} ms (target ≤ 1: ${p99 <= 1 ? "PASS" : "FAIL"}); errors ${row.errors}`,
      );
    }
  }
  return lines;
}

async function runOne(
  target: LatencyTarget,
  options: { seconds: number; wrk: OneConnectionWrk },
): Promise<Percentiles> {
  return options.wrk(target.url, target.body, target.headers, options.seconds, 1);
}

/**
 * Collections so far of the main thread's heap of a process started with BUN_JSC_logGC=1, from its
 * stderr's file. Each heap (the main thread's, and each worker's: the embedded database, long scans)
 * names itself in its lines (`[GC<0x…>: START … => EdenCollection`); the first to collect is the
 * main thread's, which starts first.
 */
export function collectionsSoFar(stderrPath: string): { eden: number; full: number } {
  const counts = { eden: 0, full: 0 };
  if (!existsSync(stderrPath)) return counts;
  let main: string | undefined;
  for (const [, heap, kind] of readFileSync(stderrPath, "utf8").matchAll(collectionLine)) {
    main ??= heap;
    if (heap !== main) continue;
    if (kind === "FullCollection") counts.full++;
    else counts.eden++;
  }
  return counts;
}

const collectionLine = /\[GC<(0x[0-9a-f]+)>: START [^\n]*?=> (EdenCollection|FullCollection)/g;

/** "eden E, full F per 10k requests" from the counts before and after a row's requests. */
export function collectionsPer10k(
  before: { eden: number; full: number },
  after: { eden: number; full: number },
  requests: number,
): { eden: number; full: number } {
  const per = (n: number) => (n * 10_000) / Math.max(1, requests);
  return { eden: per(after.eden - before.eden), full: per(after.full - before.full) };
}
