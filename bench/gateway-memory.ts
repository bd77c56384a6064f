// Issue #34's memory figures: a platform process's resident memory under the gateway load and where
// its garbage collections land. Part of `bun run bench gateway` (and alone: `bun run bench gateway
// --memory-only [--stores embedded,postgres] [--memory-seconds 20]`). Per store, one fresh platform
// process started with BUN_JSC_logGC=1 (JavaScriptCore writes a line per collection to stderr, which
// the bench keeps in the process's log), then wrk with 64 connections, a unique 1 KB prompt a request,
// lifecycle on. Printed: resident memory idle after /ready, the highest of /proc/<pid>/status VmRSS
// sampled every 100 ms under load (worker threads, PGlite's included, share the process's memory), the
// process's lifetime peak (VmHWM, start-up included), and the collections of the main thread's heap:
// full collections per 10k requests and their longest pause (a full collection stops the request loop
// for its pause: the requests in flight wait that long).
import { readFileSync } from "node:fs";

interface WrkResult {
  rps: number;
  requests: number;
  errors: number;
}

/** A platform process started for this measurement (its log holds its stderr). */
export interface MemoryPlatform {
  pid: number;
  gatewayUrl: string;
  auth: Record<string, string>;
  logPath: string;
  stop(): Promise<void>;
}

/** What bench/gateway.ts lends this measurement (its processes and wrk). */
export interface MemoryKit {
  /** A platform process on `store` with this extra environment. */
  start(store: "embedded" | "postgres", env: Record<string, string>): Promise<MemoryPlatform>;
  wrk(
    url: string,
    body: string,
    headers: Record<string, string>,
    seconds: number,
    connections: number,
  ): Promise<WrkResult>;
  chatBody(model: string): string;
}

/** The gateway load of issue #34. */
export const memoryLoadConnections = 64;

export function residentMiB(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => Number(status.match(new RegExp(`${field}:\\s+(\\d+)`))?.[1] ?? 0);
  return { rss: Math.round(kib("VmRSS") / 1024), peak: Math.round(kib("VmHWM") / 1024) };
}

export interface CollectionCounts {
  full: number;
  eden: number;
  /** Longest stop-the-world pause of a full collection, ms. */
  longestFullPauseMs: number;
  /** All full collections' pauses together, ms. */
  fullPauseMs: number;
}

// `[GC<0x…>: START M 15459kb => FullCollection, … p=12.788230ms (max …)...]`: a collection's first line
// names its kind and its first pause (`p=`); a collection with concurrent marking ends on later lines
// with the pauses after marking (`… => 3282kb, p=1.894920ms (max …), cycle … END]`), one without ends
// on the same line. Its pause is the sum of the `p=` on its lines.
const heapOf = /^\[GC<(0x[0-9a-f]+)>: /;
const kindOf = / START .*?=> (FullCollection|EdenCollection),/;
const pauses = / p=([\d.]+)ms/g;

/**
 * The collections of the heap that collected most in `log` (the request loop's: a worker's heap, as
 * PGlite's, collects rarely) from character `from` on.
 */
export function countCollections(log: string, from = 0): CollectionCounts {
  const heaps = new Map<string, CollectionCounts & { open?: { full: boolean; pause: number } }>();
  for (const line of log.slice(from).split("\n")) {
    const address = heapOf.exec(line)?.[1];
    if (!address) continue;
    const heap = heaps.get(address) ?? { full: 0, eden: 0, longestFullPauseMs: 0, fullPauseMs: 0 };
    heaps.set(address, heap);
    const kind = kindOf.exec(line)?.[1];
    if (kind) heap.open = { full: kind === "FullCollection", pause: 0 };
    if (!heap.open) continue;
    for (const pause of line.matchAll(pauses)) heap.open.pause += Number(pause[1]);
    if (!line.includes("END]")) continue;
    if (heap.open.full) {
      heap.full++;
      heap.fullPauseMs += heap.open.pause;
      heap.longestFullPauseMs = Math.max(heap.longestFullPauseMs, heap.open.pause);
    } else heap.eden++;
    heap.open = undefined;
  }
  const busiest = [...heaps.values()].sort((a, b) => b.full + b.eden - (a.full + a.eden))[0];
  return {
    full: busiest?.full ?? 0,
    eden: busiest?.eden ?? 0,
    longestFullPauseMs: busiest?.longestFullPauseMs ?? 0,
    fullPauseMs: busiest?.fullPauseMs ?? 0,
  };
}

export interface MemoryResult {
  store: "embedded" | "postgres";
  idleMiB: number;
  loadPeakMiB: number;
  lifetimePeakMiB: number;
  afterMiB: number;
  requests: number;
  rps: number;
  errors: number;
  collections: CollectionCounts;
}

/** One store's figures: a fresh platform, idle, then `seconds` of the 64-connection load. */
export async function measureMemory(
  kit: MemoryKit,
  store: "embedded" | "postgres",
  seconds: number,
  env: Record<string, string> = {},
): Promise<MemoryResult> {
  const platform = await kit.start(store, { ...env, BUN_JSC_logGC: "1" });
  try {
    const body = kit.chatBody("bench-on");
    // A short warm-up (JIT, pools, caches), as the throughput rows have; its collections are not counted.
    await kit.wrk(platform.gatewayUrl, body, platform.auth, 2, memoryLoadConnections);
    const idleMiB = residentMiB(platform.pid).rss;
    const logFrom = readFileSync(platform.logPath, "utf8").length;
    let loadPeakMiB = idleMiB;
    const sampler = setInterval(() => {
      loadPeakMiB = Math.max(loadPeakMiB, residentMiB(platform.pid).rss);
    }, 100);
    const r = await kit.wrk(platform.gatewayUrl, body, platform.auth, seconds, memoryLoadConnections);
    clearInterval(sampler);
    const { rss: afterMiB, peak: lifetimePeakMiB } = residentMiB(platform.pid);
    loadPeakMiB = Math.max(loadPeakMiB, afterMiB);
    const collections = countCollections(readFileSync(platform.logPath, "utf8"), logFrom);
    return {
      store,
      idleMiB,
      loadPeakMiB,
      lifetimePeakMiB,
      afterMiB,
      requests: r.requests,
      rps: r.rps,
      errors: r.errors,
      collections,
    };
  } finally {
    await platform.stop();
  }
}

/** The bound issue #34 sets for a store's peak. */
export const peakTargetMiB = { embedded: 300, postgres: 200 } as const;

export function memoryLines(results: MemoryResult[], seconds: number): string {
  const lines = [
    `\nresident memory, wrk -c${memoryLoadConnections} -d${seconds}s, lifecycle on, a fresh platform process per store (BUN_JSC_logGC=1):`,
    "| store | idle after warm-up MB | peak under load MB | lifetime peak (VmHWM) MB | target MB | after MB | requests | errors | full collections / 10k requests | longest full pause ms | eden / 10k |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const r of results) {
    const per10k = (n: number) => ((n * 10_000) / Math.max(1, r.requests)).toFixed(1);
    const met = r.lifetimePeakMiB <= peakTargetMiB[r.store] ? "met" : "NOT met";
    lines.push(
      `| ${r.store === "embedded" ? "embedded" : "PostgreSQL + Redis"} | ${r.idleMiB} | ${r.loadPeakMiB} | ${r.lifetimePeakMiB} | ${peakTargetMiB[r.store]} (${met}) | ${r.afterMiB} | ${r.requests} | ${r.errors} | ${per10k(r.collections.full)} | ${r.collections.longestFullPauseMs.toFixed(1)} | ${per10k(r.collections.eden)} |`,
    );
  }
  return lines.join("\n");
}

if (import.meta.main) {
  console.log(
    "part of the gateway benchmark: bun run bench gateway --memory-only [--stores embedded,postgres]",
  );
}
