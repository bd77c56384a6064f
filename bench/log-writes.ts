// The inference gateway's write path alone: what one logged request costs the process that writes the
// logs and usage, in CPU µs per request (all of it on the event loop with PGlite: its SQL runs in
// WebAssembly on the calling thread; with PostgreSQL only the client's share is in this process).
// Batches of 500 (the gateway's batchers), entries shaped like the gateway benchmark's; medians of 5 rounds.
//
//   bun bench/log-writes.ts [--batches 40] [--batch 500]
//   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test bun bench/log-writes.ts   (adds PostgreSQL)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import postgres from "postgres";
import { openDatabase } from "#db/client.ts";
import { migrate } from "#db/migrate.ts";
import { organizations } from "#db/schema/index.ts";
import { at } from "#scripts/checked.ts";
import type { InferenceLogEntry, UsageRecord } from "#services/inference/port.ts";
import { writeInferenceLogs } from "#services/inference-logs/logs.ts";
import { trackUsage } from "#services/usage/quota.ts";

const { values } = parseArgs({
  options: {
    batches: { type: "string", default: "40" },
    batch: { type: "string", default: "500" },
  },
});
const batches = Number(values.batches);
const size = Number(values.batch);

/** Log entries of the given deployments, one after another (each names its deployment). */
type BenchEntry = InferenceLogEntry & { deployment_id: string };

function entries(orgId: string, deploymentIds: string[], keyId: string, n: number): BenchEntry[] {
  return Array.from({ length: n }, (_, i) => {
    const latency = 3 + Math.random() * 20;
    const deploymentId = at(deploymentIds, i % deploymentIds.length);
    return {
      request_id: crypto.randomUUID(),
      org_id: orgId,
      deployment_id: deploymentId,
      api_key_id: keyId,
      key_prefix: "sk-bench",
      model: "bench-on",
      status: i % 50 === 0 ? 429 : 200,
      error_code: i % 50 === 0 ? "rate_limited" : undefined,
      prompt_tokens: 260,
      completion_tokens: 64,
      total_tokens: 324,
      latency_ms: Math.round(latency * 100) / 100,
      ttft_ms: Math.round(latency * 90) / 100,
      cost: 0.000_13,
      stream: false,
      guardrails: { input: { action: "allow", findings: [] }, output: { action: "allow", findings: [] } },
      served_by_deployment_id: deploymentId,
      served_by: "bench-on",
    };
  });
}

interface Figure {
  cpuUs: number;
  /** The calling thread only: the embedded database runs in a worker of its own. */
  mainUs: number;
  wallUs: number;
}

/**
 * CPU and wall time per record of `run`, after 5 batches not counted: the median of 5 rounds of
 * `batches` / 5 batches each (the machine is shared; a round that met another job's burst is dropped).
 */
async function measure<T>(make: () => T, run: (batch: T) => Promise<unknown>): Promise<Figure> {
  for (let i = 0; i < 5; i++) await run(make());
  const rounds: Figure[] = [];
  for (let round = 0; round < 5; round++) {
    const made = Array.from({ length: Math.max(1, Math.round(batches / 5)) }, make);
    Bun.gc(true);
    const cpu = process.cpuUsage();
    const thread = process.threadCpuUsage();
    const started = performance.now();
    for (const batch of made) await run(batch);
    const used = process.cpuUsage(cpu);
    const onThread = process.threadCpuUsage(thread);
    const rows = made.length * size;
    rounds.push({
      cpuUs: (used.user + used.system) / rows,
      mainUs: (onThread.user + onThread.system) / rows,
      wallUs: ((performance.now() - started) * 1000) / rows,
    });
  }
  const median = (f: (x: Figure) => number) =>
    at(
      rounds.map(f).sort((a, b) => a - b),
      2,
    );
  return { cpuUs: median((x) => x.cpuUs), mainUs: median((x) => x.mainUs), wallUs: median((x) => x.wallUs) };
}

async function store(kind: "embedded" | "postgres", url?: string) {
  const dir = mkdtempSync(join(tmpdir(), "llmp-bench-logs-"));
  const handle = await openDatabase(url ? { url } : { pgliteDir: dir });
  try {
    await migrate(handle.db);
    const [org] = await handle.db
      .insert(organizations)
      .values({ name: `bench-${crypto.randomUUID()}` })
      .returning({ id: organizations.id });
    if (!org) throw new Error("no organization inserted");
    const orgId = org.id;
    const deployments = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    const keyId = crypto.randomUUID();
    const ctx = { db: handle.db, clock: () => new Date() };
    const logs = await measure(
      () => entries(orgId, deployments, keyId, size),
      (batch) => writeInferenceLogs(ctx, batch),
    );
    const usage = await measure(
      () =>
        entries(orgId, deployments, keyId, size).map(
          (e): UsageRecord => ({
            orgId,
            deploymentId: e.deployment_id,
            apiKeyId: e.api_key_id,
            promptTokens: e.prompt_tokens,
            completionTokens: e.completion_tokens,
            cost: e.cost,
          }),
        ),
      (batch) => trackUsage(ctx, batch),
    );
    const show = (f: Figure) =>
      `${f.cpuUs.toFixed(1)} µs CPU (main thread ${f.mainUs.toFixed(1)}), ${f.wallUs.toFixed(1)} µs wall`;
    console.log(
      `| ${kind} | ${show(logs)} | ${show(usage)} | ${show({ cpuUs: logs.cpuUs + usage.cpuUs, mainUs: logs.mainUs + usage.mainUs, wallUs: logs.wallUs + usage.wallUs })} |`,
    );
  } finally {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(
  `# the write path: ${batches} batches of ${size} (after 5 not counted, median of 5 rounds), per logged request\n`,
);
console.log("| store | logs and rollups | usage, spend and quota counters | both |");
console.log("|---|---:|---:|---:|");
await store("embedded");
const server = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
if (server) {
  const name = `bench_logs_${Date.now()}`;
  const admin = postgres(server, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  try {
    await store("postgres", url.toString());
  } finally {
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.end();
  }
}
