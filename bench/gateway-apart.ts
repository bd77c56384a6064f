// `bench/gateway.ts --apart 1,2`: the gateways run apart, as docs/operations.md deploys them (issue #19).
// Per size N: one process with filtration + orchestration and N inference-only processes, all on one
// fresh PostgreSQL database and the Redis of REDIS_URL, beside the single process on PostgreSQL + Redis
// for comparison. wrk takes one URL, so one wrk per inference process runs at once (the connections
// split between them) and their results are added up. Printed per inference process: requests/s, CPU
// µs/request and requests/s per core it used (requests over its CPU seconds, from /proc); and the
// filtration process's CPU per request. Each run is repeated with the single process loaded at the same
// time ("beside the single process"): on a machine of two shared cores, N inference processes, their
// wrk, PostgreSQL and Redis contend for the cores, which raises each one's CPU per request; loaded side
// by side, the single process meets the same contention, so that ratio compares the code, not the
// crowding. Then, per size:
//   - 2 s after each run, inference_logs rows against the requests the inference processes counted
//     (llm_requests_total on their /metrics: wrk's own count misses requests cut off in flight);
//   - the filtration process stopped (SIGTERM) first, 2 s more of load on the inference processes
//     (contexts they know keep serving), then SIGTERM to each: how long each took to exit, and rows
//     plus entries spilled under DATA_DIR/spill against every request counted.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import postgres from "postgres";
import { at } from "#scripts/checked.ts";

interface WrkResult {
  rps: number;
  requests: number;
  errors: number;
}

/** What bench/gateway.ts lends this mode (its processes, wrk, and the setup a user would do). */
export interface ApartKit {
  duration: number;
  connections: number;
  rounds: number;
  /** Only the rows whose name contains one of these. */
  only: string[] | undefined;
  /** First port of the apart processes: process j listens on base + 3·j + 0, 1, 2. */
  portBase: number;
  redisUrl: string;
  spawnPlatform(name: string, env: Record<string, string>): Subprocess;
  /** Data directory of a process spawned by spawnPlatform. */
  dataDirOf(proc: Subprocess): string;
  waitFor(url: string, what: string, timeoutMs?: number, ok?: boolean): Promise<void>;
  setUpAsUser(
    filtration: string,
    orchestration: string,
    gatewayUrls: string[],
  ): Promise<{ auth: Record<string, string> }>;
  createDatabase(): Promise<string>;
  dropDatabase(url: string): Promise<void>;
  /** The single process on PostgreSQL + Redis, set up. */
  single(): Promise<{ proc: Subprocess; gatewayUrl: string; auth: Record<string, string>; dbUrl?: string }>;
  wrk(
    url: string,
    body: string,
    headers: Record<string, string>,
    seconds?: number,
    conns?: number,
  ): Promise<WrkResult>;
  chatBody(model: string): string;
  cpuSeconds(pid: number): number;
  median(xs: number[]): number;
}

interface Apart {
  size: number;
  dbUrl: string;
  filtration: Subprocess;
  inference: { proc: Subprocess; url: string; metrics: string }[];
  auth: Record<string, string>;
}

const internalKey = "bench-internal-api-key-0123456789";
const shared = {
  // Every process of one deployment holds the same secrets (docs/operations.md).
  JWT_SECRET: "bench-jwt-secret-0123456789abcdef",
  INTERNAL_API_KEY: internalKey,
  ENCRYPTION_KEY: "bench-encryption-key-0123456789ab",
};

async function startApart(kit: ApartKit, size: number, slot: number): Promise<Apart> {
  const dbUrl = await kit.createDatabase();
  const port = (j: number, k: number) => kit.portBase + 3 * j + k;
  const [fPort, oPort] = [port(slot, 0), port(slot, 2)];
  const common = { ...shared, DATABASE_URL: dbUrl, REDIS_URL: kit.redisUrl };
  const filtration = kit.spawnPlatform(`apart${size}-filtration`, {
    ...common,
    SERVICES: "filtration,orchestration",
    FILTRATION_PORT: String(fPort),
    ORCHESTRATION_PORT: String(oPort),
    INFERENCE_PORT: String(port(slot, 1)),
  });
  const filtrationUrl = `http://127.0.0.1:${fPort}`;
  const orchestrationUrl = `http://127.0.0.1:${oPort}`;
  await kit.waitFor(`${filtrationUrl}/ready`, "filtration + orchestration", 60_000, true);
  const inference = [];
  for (let i = 0; i < size; i++) {
    const p = port(slot + 1 + i, 1);
    const proc = kit.spawnPlatform(`apart${size}-inference-${i + 1}`, {
      ...common,
      SERVICES: "inference",
      INFERENCE_PORT: String(p),
      FILTRATION_URL: filtrationUrl,
      ORCHESTRATION_URL: orchestrationUrl,
    });
    inference.push({
      proc,
      url: `http://127.0.0.1:${p}/v1/chat/completions`,
      metrics: `http://127.0.0.1:${p}/metrics`,
    });
  }
  for (const g of inference) await kit.waitFor(g.metrics, "inference", 60_000, true);
  const { auth } = await kit.setUpAsUser(
    filtrationUrl,
    orchestrationUrl,
    inference.map((g) => g.url),
  );
  return { size, dbUrl, filtration, inference, auth };
}

/** Requests the inference processes counted (each one's log entry is owed). */
async function counted(apart: Apart): Promise<number> {
  let total = 0;
  for (const g of apart.inference) {
    const text = await (await fetch(g.metrics)).text();
    for (const m of text.matchAll(/^llm_requests_total\{[^}]*\} (\d+)/gm)) total += Number(m[1]);
  }
  return total;
}

async function logRows(dbUrl: string): Promise<number> {
  const sql = postgres(dbUrl, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql`select count(*)::int as n from inference_logs`;
    return Number(row?.n ?? 0);
  } finally {
    await sql.end();
  }
}

function spilledLogs(dataDir: string): number {
  const dir = join(dataDir, "spill");
  let lines = 0;
  try {
    for (const name of readdirSync(dir).filter((n) => n.startsWith("logs-") && n.endsWith(".jsonl")))
      lines += readFileSync(join(dir, name), "utf8").split("\n").filter(Boolean).length;
  } catch {}
  return lines;
}

/** One wrk per inference process at once, the connections split between them. */
async function load(kit: ApartKit, apart: Apart, model: string, seconds: number) {
  const conns = Math.max(2, Math.ceil(kit.connections / apart.size));
  return Promise.all(
    apart.inference.map((g) => kit.wrk(g.url, kit.chatBody(model), apart.auth, seconds, conns)),
  );
}

/** Waits up to `ms` for a process to exit; its exit time in ms, or undefined when it did not. */
async function exitWithin(proc: Subprocess, ms: number): Promise<number | undefined> {
  const started = performance.now();
  proc.kill("SIGTERM");
  const exited = await Promise.race([proc.exited.then(() => true), Bun.sleep(ms).then(() => false)]);
  if (!exited) proc.kill("SIGKILL");
  return exited ? Math.round(performance.now() - started) : undefined;
}

export async function runApart(kit: ApartKit, sizes: number[]): Promise<void> {
  console.log(
    `# gateways apart: wrk -t2 -d${kit.duration}s, ${kit.connections} connections split over the inference processes, PostgreSQL + Redis, ${kit.rounds} round(s)\n`,
  );
  const single = await kit.single();
  const aparts: Apart[] = [];
  for (const size of sizes)
    aparts.push(
      await startApart(
        kit,
        size,
        aparts.reduce((n, a) => n + 1 + a.size, 0),
      ),
    );
  const setups: [string, string][] = [
    ["lifecycle on", "bench-on"],
    ["lifecycle off", "bench-off"],
  ];
  const models = setups.filter(([name]) => !kit.only || kit.only.some((o) => name.includes(o)));

  // Warm-up (JIT, pools, caches), not counted.
  for (const [, model] of models) {
    await kit.wrk(single.gatewayUrl, kit.chatBody(model), single.auth, 2);
    for (const apart of aparts) await load(kit, apart, model, 2);
  }

  // What each process spends with no request at all (timers, reports, the reconciler): at a few
  // hundred requests a second it is part of every request's CPU.
  const idle = [
    { name: "single process", pid: single.proc.pid },
    ...aparts.flatMap((a) => [
      { name: `apart ${a.size} filtration + orchestration`, pid: a.filtration.pid },
      ...a.inference.map((g, i) => ({ name: `apart ${a.size} inference ${i + 1}`, pid: g.proc.pid })),
    ]),
  ];
  const idleBefore = idle.map((p) => kit.cpuSeconds(p.pid));
  await Bun.sleep(5000);
  console.log(
    `idle, CPU ms a second: ${idle.map((p, i) => `${p.name} ${(((kit.cpuSeconds(p.pid) - at(idleBefore, i)) * 1000) / 5).toFixed(1)}`).join(", ")}`,
  );

  type Row = { rps: number[]; cpu: number[]; perCore: number[]; base: string };
  const rows = new Map<string, Row>();
  const row = (name: string, base: string) => {
    const r = rows.get(name) ?? { rps: [], cpu: [], perCore: [], base };
    rows.set(name, r);
    return r;
  };
  /**
   * wrk on every target at once, the connections split between them; a row per target (its ratio per
   * core to the row `base`), and `others`' CPU per request of all targets together.
   */
  async function measure(
    targets: { name: string; url: string; pid: number; auth: Record<string, string> }[],
    others: { name: string; pid: number }[],
    model: string,
    base: string,
  ) {
    const pids = [...targets, ...others].map((t) => t.pid);
    const cpuBefore = pids.map((pid) => kit.cpuSeconds(pid));
    const conns = Math.max(2, Math.ceil(kit.connections / targets.length));
    const results = await Promise.all(
      targets.map((t) => kit.wrk(t.url, kit.chatBody(model), t.auth, kit.duration, conns)),
    );
    const used = pids.map((pid, i) => kit.cpuSeconds(pid) - at(cpuBefore, i));
    const total = results.reduce((n, x) => n + x.requests, 0);
    const parts = targets.map((t, i) => {
      const [x, c] = [at(results, i), at(used, i)];
      const r = row(t.name, base);
      r.rps.push(x.rps);
      r.cpu.push((c * 1e6) / Math.max(1, x.requests));
      r.perCore.push(x.requests / Math.max(0.01, c));
      return `${t.name}: ${Math.round(x.rps)} req/s, ${((c * 1e6) / Math.max(1, x.requests)).toFixed(0)} µs/request, ${x.errors} errors`;
    });
    for (const [i, o] of others.entries()) {
      const c = at(used, targets.length + i);
      row(o.name, base).cpu.push((c * 1e6) / Math.max(1, total));
      parts.push(`${o.name}: ${((c * 1e6) / Math.max(1, total)).toFixed(0)} µs/request`);
    }
    return parts.join("; ");
  }

  const unwritten = new Map<number, number[]>();
  for (let round = 0; round < kit.rounds; round++)
    for (const [what, model] of models) {
      const alone = `single process, ${what}`;
      const singleTarget = (name: string) => ({
        name,
        url: single.gatewayUrl,
        pid: single.proc.pid,
        auth: single.auth,
      });
      console.log(`round ${round + 1}: ${await measure([singleTarget(alone)], [], model, alone)}`);
      for (const apart of aparts) {
        const inference = apart.inference.map((g, i) => ({
          name: `apart ${apart.size}: inference ${i + 1} of ${apart.size}, ${what}`,
          url: g.url,
          pid: g.proc.pid,
          auth: apart.auth,
        }));
        const filtration = {
          name: `apart ${apart.size}: filtration + orchestration, ${what}`,
          pid: apart.filtration.pid,
        };
        const line = await measure(inference, [filtration], model, alone);
        // Every entry owed should be in the database 2 s after the run.
        await Bun.sleep(2000);
        const missing = (await counted(apart)) - (await logRows(apart.dbUrl));
        unwritten.set(apart.size, [...(unwritten.get(apart.size) ?? []), missing]);
        console.log(`round ${round + 1}: ${line}; log entries unwritten 2 s after: ${missing}`);
        // The same, with the single process loaded at the same time: both under the same contention
        // for this machine's two cores, so their CPU per request compares like for like.
        const beside = `apart ${apart.size} beside the single process: single process, ${what}`;
        const together = await measure(
          [
            singleTarget(beside),
            ...inference.map((t) => ({ ...t, name: t.name.replace(": ", " beside the single process: ") })),
          ],
          [],
          model,
          beside,
        );
        console.log(`round ${round + 1}: ${together}`);
      }
    }

  console.log(
    `\n| setup | requests/s (median of ${kit.rounds}) | CPU µs/request | requests/s per core used | per core, of the single process's |`,
  );
  console.log("|---|---:|---:|---:|---:|");
  for (const [name, r] of rows) {
    const perCore = kit.median(r.perCore);
    const ratio = perCore / kit.median(rows.get(r.base)?.perCore ?? []);
    const fmt = (n: number) => (Number.isNaN(n) ? "-" : Math.round(n).toLocaleString("en"));
    console.log(
      `| ${name} | ${fmt(kit.median(r.rps))} | ${fmt(kit.median(r.cpu))} | ${fmt(perCore)} | ${Number.isNaN(ratio) ? "-" : ratio.toFixed(2)} |`,
    );
  }

  console.log("");
  for (const apart of aparts) {
    console.log(
      `apart ${apart.size}: log entries unwritten 2 s after each run: ${(unwritten.get(apart.size) ?? []).join(", ")}`,
    );
    const filtrationExit = await exitWithin(apart.filtration, 30_000);
    // Filtration gone: the inference processes keep serving the contexts they know, and must still
    // write (or keep) every entry and stop in time.
    const model = models[0]?.[1] ?? "bench-on";
    const burst = await load(kit, apart, model, 2);
    // Requests wrk cut off at its end still finish (and are owed a log entry).
    await Bun.sleep(500);
    const owed = await counted(apart);
    const exits = await Promise.all(apart.inference.map((g) => exitWithin(g.proc, 30_000)));
    const rows = await logRows(apart.dbUrl);
    const spilled = apart.inference.reduce((n, g) => n + spilledLogs(kit.dataDirOf(g.proc)), 0);
    console.log(
      `apart ${apart.size}: filtration exited ${filtrationExit ?? "not within 30 000"} ms after SIGTERM; then 2 s of load (${burst.reduce((n, x) => n + x.requests, 0)} requests, ${burst.reduce((n, x) => n + x.errors, 0)} errors); inference processes exited ${exits.map((e) => (e === undefined ? "not within 30 000" : e)).join(", ")} ms after SIGTERM; log rows ${rows} + spilled ${spilled} = ${rows + spilled} of ${owed} requests counted`,
    );
  }
  single.proc.kill("SIGTERM");
  await single.proc.exited;
  for (const apart of aparts) await kit.dropDatabase(apart.dbUrl);
  if (single.dbUrl) await kit.dropDatabase(single.dbUrl);
}
