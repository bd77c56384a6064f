// The inference gateway's overhead, side by side, from one run (issue #19): wrk (Debian) against one
// fixed-response OpenAI stub, every request with its own 1 KB prompt, and these setups, interleaved
// round after round (the machine is shared: compare each row with the bare proxy of the same round):
//   (a) the stub directly; (d) a bare Bun proxy (the ceiling of a proxy on this machine);
//   (c) Portkey 1.15.2 run with Bun (and with Node, --portkey-node);
//   this platform, all services in one process, on each store (embedded PGlite; PostgreSQL + Redis
//   when BENCH_DATABASE_URL or TEST_DATABASE_URL names a server and REDIS_URL is set):
//     lifecycle on (key, rate limit, prompt template, input PII redact + toxicity and prompt-injection
//     block, output PII redact + toxicity block, logging), lifecycle off (key and logging only), and
//     lifecycle on + tracing on (OTLP/HTTP to a sink in this process that accepts and drops spans).
//     Metrics are always on (/metrics is served by every gateway).
// Then, per store, the latency added at a fixed 500 requests/s, streaming's first token, and the
// platform processes' resident memory.
//
//   bun run bench gateway [--duration 10] [--connections 32] [--rounds 2] [--stores embedded,postgres]
//                         [--portkey-dir /tmp/portkey] [--portkey-node] [--skip-portkey] [--skip-latency]
//                         [--profile DIR] [--env KEY=VALUE] [--port-base 19900]
//   bun run bench gateway --quick   (a few minutes: 3 s rows, 2 rounds, no tracing, no streaming rows,
//     a shorter conversation; every issue #34 figure still printed)
//   bun run bench gateway --conversation-only [--stores embedded]   (issue #34: a conversation's tenth
//     turn's CPU against its first; bench/conversation-cpu.ts; also printed at the end of a full run)
//   bun run bench gateway --memory-only [--stores embedded,postgres] [--memory-seconds 20]   (issue #34:
//     resident memory peak under 64 connections and full collections per 10k requests, per store, each
//     on a fresh platform process; bench/gateway-memory.ts; also printed at the end of a full run)
//   bun run bench gateway --apart 1,2 [--duration 10] [--rounds 1] [--only "lifecycle on"] [--profile DIR]
//     (the gateways apart on PostgreSQL + Redis, beside the single process: bench/gateway-apart.ts)
//
// Portkey: `npm install --prefix /tmp/portkey @portkey-ai/gateway@1.15.2` (it is not a dependency of
// this project). A fresh database is created on the PostgreSQL server for each platform process.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Type as T } from "@sinclair/typebox";
import type { Subprocess } from "bun";
import postgres from "postgres";
import { at } from "#scripts/checked.ts";
import { jscOptions } from "#server/jsc-options.ts";
import { conversationCpu, conversationCpuLine } from "./conversation-cpu.ts";
import { runApart } from "./gateway-apart.ts";
import {
  collectionsPer10k,
  collectionsSoFar,
  type OneConnectionPlan,
  oneConnectionLatency,
} from "./gateway-latency.ts";
import { type MemoryKit, measureMemory, memoryLines } from "./gateway-memory.ts";
import { api, createBenchKey } from "./platform-api.ts";
import { benchPrompt as prompt } from "./prompts.ts";

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "32" },
    /** Each setup is measured once a round, setups interleaved; the table shows medians. */
    rounds: { type: "string", default: "1" },
    /** Which stores the platform runs on (postgres needs BENCH_DATABASE_URL or TEST_DATABASE_URL). */
    stores: { type: "string", default: "embedded,postgres" },
    "portkey-dir": { type: "string", default: "/tmp/portkey" },
    "portkey-node": { type: "boolean", default: false },
    "skip-portkey": { type: "boolean", default: false },
    /** Skip the fixed-rate latency and streaming measurements. */
    "skip-latency": { type: "boolean", default: false },
    /** Write a CPU profile of each platform process (markdown) into this folder. */
    profile: { type: "string" },
    /** Extra environment of the platform process, KEY=VALUE (repeatable), e.g. LOG_LEVEL=warn. */
    env: { type: "string", multiple: true, default: [] },
    /** Only the platform rows whose name contains one of these (comma-separated), e.g. "lifecycle off". */
    only: { type: "string" },
    /** Skip the traced platform process (and its rows). */
    "skip-tracing": { type: "boolean", default: false },
    /** First of the ports this run listens on (about 60 above it): two runs at once need their own. */
    "port-base": { type: "string", default: "19900" },
    /**
     * The gateways apart instead (bench/gateway-apart.ts), e.g. "1,2": per size N, filtration +
     * orchestration in one process and N inference-only processes, on PostgreSQL + Redis.
     */
    apart: { type: "string" },
    /** Only the conversation figure (a tenth turn's CPU against a first's, issue #34): no wrk needed. */
    "conversation-only": { type: "boolean", default: false },
    "skip-conversation": { type: "boolean", default: false },
    /** Fewer requests: 3 s rows, 2 rounds, no tracing or streaming rows, a shorter conversation. */
    quick: { type: "boolean", default: false },
    /** Seconds of each one-connection latency run (issue #34: stub at 0 ms and at 20 ms). */
    "one-connection-seconds": { type: "string" },
    /** Only the memory figures (bench/gateway-memory.ts, issue #34). */
    "memory-only": { type: "boolean", default: false },
    "skip-memory": { type: "boolean", default: false },
    /** How long the memory measurement's load runs, per store. */
    "memory-seconds": { type: "string", default: "20" },
  },
});
if (values.quick) {
  if (!process.argv.includes("--duration")) values.duration = "3";
  if (!process.argv.includes("--rounds")) values.rounds = "2";
  values["skip-tracing"] = true;
}
const duration = Number(values.duration);
const connections = Number(values.connections);
const root = join(import.meta.dir, "..");
const work = mkdtempSync(join(tmpdir(), "llmp-bench-gw-"));
const children: Subprocess[] = [];
process.on("exit", () => {
  for (const c of children) c.kill("SIGKILL");
  // The platforms' data directories and wrk scripts (set KEEP_BENCH_DIR=1 to read their logs).
  if (!process.env.KEEP_BENCH_DIR) rmSync(work, { recursive: true, force: true });
});

if (!Bun.which("wrk") && !values["conversation-only"]) {
  console.error("wrk is not installed: apt-get install wrk");
  process.exit(1);
}

// ---------- processes ----------

const portBase = Number(values["port-base"]);
const ports = {
  stub: portBase + 1,
  /** The same stub answering after 20 ms (issue #34's one-connection latency). */
  stub20: portBase + 2,
  portkey: portBase + 20,
  portkeyNode: portBase + 21,
  bare: portBase + 30,
  bare20: portBase + 31,
  /** Platform n listens on platformBase + 10·n + 0 (filtration), 1 (inference), 2 (orchestration). */
  platformBase: portBase + 40,
  /** The processes of --apart: process j listens on apartBase + 3·j + 0, 1, 2. */
  apartBase: portBase + 50,
};

// The ceiling on this machine: a Bun proxy that forwards the body and returns the answer, no lifecycle.
const bareProxy = (
  port: number,
  stubPort: number,
) => `Bun.serve({ port: ${port}, hostname: "127.0.0.1", async fetch(req) {
  const r = await fetch("http://127.0.0.1:${stubPort}/v1/chat/completions", { method: "POST",
    headers: { "content-type": "application/json" }, body: await req.text() });
  return new Response(r.body, { status: r.status, headers: { "content-type": "application/json" } });
} });`;

/** Until `url` answers (with a 2xx when `ok` is asked: /ready says 503 while the platform starts). */
async function waitFor(url: string, what: string, timeoutMs = 60_000, ok = false): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (!ok || response.ok) return;
    } catch {}
    await Bun.sleep(100);
  }
  throw new Error(`${what} did not come up at ${url}`);
}

function spawn(
  cmd: string[],
  env: Record<string, string> = {},
  logName?: string,
  stderrName?: string,
): Subprocess {
  const out = logName ? Bun.file(join(work, logName)) : "ignore";
  const err = stderrName ? Bun.file(join(work, stderrName)) : out;
  const proc = Bun.spawn(cmd, { cwd: root, env: { ...process.env, ...env }, stdout: out, stderr: err });
  children.push(proc);
  return proc;
}

/** CPU seconds (user + system) a process (or only its main thread) has used so far. */
function cpuSeconds(pid: number, mainThread = false): number {
  const path = mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`;
  const fields = readFileSync(path, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function rssMiB(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => Number(status.match(new RegExp(`${field}:\\s+(\\d+)`))?.[1] ?? 0);
  return { rss: Math.round(kib("VmRSS") / 1024), peak: Math.round(kib("VmHWM") / 1024) };
}

// ---------- wrk ----------

interface WrkResult {
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  errors: number;
  /** Requests completed in the run. */
  requests: number;
}

const toMs = (value: string) => {
  const m = value.match(/^([\d.]+)(us|ms|s)$/);
  if (!m) return Number.NaN;
  const n = Number(m[1]);
  return m[2] === "us" ? n / 1000 : m[2] === "s" ? n * 1000 : n;
};

async function wrk(
  url: string,
  body: string,
  headers: Record<string, string>,
  seconds = duration,
  conns = connections,
): Promise<WrkResult> {
  const threads = Math.min(2, conns);
  const script = join(work, `wrk-${crypto.randomUUID()}.lua`);
  // Every request's prompt differs (NONCE becomes thread-counter), so nothing along the way can
  // answer from a cache of texts it has seen.
  const lua = [
    'wrk.method = "POST"',
    ...Object.entries({ "content-type": "application/json", ...headers }).map(
      ([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`,
    ),
    `local template = ${JSON.stringify(body)}`,
    "local threads = 0",
    "function setup(thread) threads = threads + 1; thread:set('tid', threads) end",
    "local counter = 0",
    "request = function()",
    "  counter = counter + 1",
    "  return wrk.format(nil, nil, nil, (string.gsub(template, 'NONCE', tid .. '-' .. counter)))",
    "end",
  ].join("\n");
  writeFileSync(script, lua);
  const proc = Bun.spawn(
    ["wrk", `-t${threads}`, `-c${conns}`, `-d${seconds}s`, "--latency", "-s", script, url],
    {
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  const pct = (p: string) => toMs(out.match(new RegExp(`\\s${p}%\\s+(\\S+)`))?.[1] ?? "");
  const errors =
    Number(out.match(/Non-2xx or 3xx responses: (\d+)/)?.[1] ?? 0) +
    Number(
      out
        .match(/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/)
        ?.slice(1)
        .reduce((a, b) => a + Number(b), 0) ?? 0,
    );
  return {
    rps: Number(out.match(/Requests\/sec:\s+([\d.]+)/)?.[1] ?? 0),
    requests: Number(out.match(/(\d+) requests in/)?.[1] ?? 0),
    p50: pct("50"),
    p90: pct("90"),
    p99: pct("99"),
    errors,
  };
}

// ---------- fixed rate and streaming, from this process ----------

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

async function fixedRate(
  url: string,
  body: string,
  headers: Record<string, string>,
  rps: number,
  seconds: number,
) {
  const latencies: number[] = [];
  let failed = 0;
  const total = rps * seconds;
  const start = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rps;
    const wait = due - performance.now();
    if (wait > 1) await Bun.sleep(wait);
    pending.push(
      (async () => {
        const t0 = performance.now();
        const r = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: unique(body),
        });
        await r.arrayBuffer();
        if (r.status !== 200) failed++;
        latencies.push(performance.now() - t0);
      })(),
    );
  }
  await Promise.all(pending);
  latencies.sort((a, b) => a - b);
  return { p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), failed };
}

async function streaming(url: string, body: string, headers: Record<string, string>, n: number) {
  const ttft: number[] = [];
  const gaps: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: unique(body),
    });
    if (!r.body) throw new Error(`${url}: no body`);
    const reader = r.body.getReader();
    const decoder = new TextDecoder();
    let last = 0;
    let buffered = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const now = performance.now();
      buffered += decoder.decode(value, { stream: true });
      const events = buffered.split("\n\n");
      buffered = events.pop() ?? "";
      for (const e of events) {
        // A token: a delta with text (an empty delta while text is held back is not one).
        if (!/"content":"[^"]/.test(e)) continue;
        if (last === 0) ttft.push(now - t0);
        else gaps.push(now - last);
        last = now;
      }
    }
  }
  ttft.sort((a, b) => a - b);
  gaps.sort((a, b) => a - b);
  return { ttftP50: quantile(ttft, 0.5), gapP50: quantile(gaps, 0.5), gapP99: quantile(gaps, 0.99) };
}

// ---------- the platform, set up as a user would ----------

const serverUrl = () => process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
function databaseServer(): string {
  const url = serverUrl();
  if (!url) throw new Error("BENCH_DATABASE_URL or TEST_DATABASE_URL is needed");
  return url;
}

async function createDatabase(): Promise<string> {
  const server = databaseServer();
  const name = `bench_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const admin = postgres(server, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  return url.toString();
}

async function dropDatabase(url: string): Promise<void> {
  const admin = postgres(databaseServer(), { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists "${new URL(url).pathname.slice(1)}" with (force)`);
  await admin.end();
}

/** A new NONCE in each request's prompt (see the wrk script). */
const unique = (body: string) => body.replace("NONCE", crypto.randomUUID().slice(0, 13));

const chatBody = (model: string, stream = false) =>
  JSON.stringify({
    model,
    messages: [{ role: "user", content: prompt }],
    max_tokens: 64,
    ...(stream ? { stream: true } : {}),
  });

/** An OTLP/HTTP receiver that only counts what it gets, as a collector that keeps up would. */
function startSpanSink() {
  let batches = 0;
  let bytes = 0;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      bytes += (await request.arrayBuffer()).byteLength;
      batches++;
      return Response.json({});
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, stats: () => ({ batches, bytes }) };
}

type Store = "embedded" | "postgres";

const adminEmail = "bench@example.com";
const adminPassword = "bench password 123";

interface PlatformProcess {
  store: Store;
  tracing: boolean;
  proc: Subprocess;
  gatewayUrl: string;
  auth: Record<string, string>;
  dbUrl: string | undefined;
}

/** Each platform process's stderr file by pid, where BUN_JSC_logGC writes its collections. */
const gcLogs = new Map<number, string>();

/** Each platform process's DATA_DIR (where it spills what it could not send at a stop). */
const dataDirs = new Map<Subprocess, string>();

/**
 * A platform process (`bun main.ts`) with its own DATA_DIR, its log in the work folder as
 * `name`.log, and its CPU profile as `name`.md (and `name`.cpuprofile) when --profile is given.
 */
function spawnPlatform(name: string, env: Record<string, string>): Subprocess {
  const dataDir = mkdtempSync(join(work, `${name}-`));
  const proc = spawn(
    [
      "bun",
      ...(values.profile
        ? ["--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${values.profile}`, `--cpu-prof-name=${name}`]
        : []),
      "main.ts",
    ],
    {
      // As `bun start` runs it (package.json); --env can override.
      ...jscOptions,
      DATA_DIR: dataDir,
      HOST: "127.0.0.1",
      GRPC_PORT: "0",
      DASHBOARD_PORT: "0",
      ADMIN_EMAIL: adminEmail,
      ADMIN_PASSWORD: adminPassword,
      // The collections per 10k requests (bench/gateway-latency.ts counts these lines in stderr).
      BUN_JSC_logGC: "1",
      ...env,
      ...Object.fromEntries(values.env.map((kv) => [kv.split("=")[0], kv.split("=").slice(1).join("=")])),
    },
    `${name}.log`,
    `${name}.gc.log`,
  );
  dataDirs.set(proc, dataDir);
  gcLogs.set(proc.pid, join(work, `${name}.gc.log`));
  return proc;
}

/** One platform process, set up as a user would: a pool, the stub as a deployment, policies, a key. */
async function startPlatformProcess(
  n: number,
  store: Store,
  tracing: ReturnType<typeof startSpanSink> | undefined,
  extraEnv: Record<string, string> = {},
): Promise<PlatformProcess> {
  const dbUrl = store === "postgres" ? await createDatabase() : undefined;
  const port = (k: number) => ports.platformBase + 10 * n + k;
  const proc = spawnPlatform(`platform-${n}`, {
    FILTRATION_PORT: String(port(0)),
    INFERENCE_PORT: String(port(1)),
    ORCHESTRATION_PORT: String(port(2)),
    DATABASE_URL: dbUrl ?? "",
    // PostgreSQL + Redis, or the embedded defaults (in-process counters).
    REDIS_URL: store === "postgres" ? (process.env.REDIS_URL ?? "") : "",
    ...(tracing ? { OTEL_EXPORTER_OTLP_ENDPOINT: tracing.url, OTEL_SERVICE_NAME: "bench-platform" } : {}),
    ...extraEnv,
  });
  const filtration = `http://127.0.0.1:${port(0)}`;
  const orchestration = `http://127.0.0.1:${port(2)}`;
  // /ready: the listeners answer and the first start (the administrator) is over.
  await waitFor(`${filtration}/ready`, "platform", 60_000, true);
  const gatewayUrl = `http://127.0.0.1:${port(1)}/v1/chat/completions`;
  const { auth } = await setUpAsUser(filtration, orchestration, [gatewayUrl]);
  return { store, tracing: tracing !== undefined, proc, gatewayUrl, auth, dbUrl };
}

/**
 * Sets the platform up as a user would: a pool, the stub as deployments, policies, a key; then checks
 * each gateway answers with it.
 */
async function setUpAsUser(
  filtration: string,
  orchestration: string,
  gatewayUrls: string[],
): Promise<{ auth: Record<string, string> }> {
  const { access_token: token } = await api(
    T.Object({ access_token: T.String() }),
    filtration,
    "/auth/login",
    {
      email: adminEmail,
      password: adminPassword,
    },
  );
  const pool = await api(
    T.Object({ pool_id: T.Unknown() }),
    orchestration,
    "/deployment/createpool",
    { pool_name: "bench", provider: "external" },
    token,
  );
  const template = await api(
    T.Object({ id: T.Unknown() }),
    filtration,
    "/management/prompts",
    { name: "bench", system_prompt: "You are a concise assistant.", user_template: "Task: {{input}}" },
    token,
  );
  // Deployments of the same stub: "bench-on" with every policy (output guardrails blocking: a streamed
  // word is held back until it can no longer grow into something to redact), "bench-async" alike but
  // with output guardrails async, and "bench-off" with none (key and logging only).
  async function deploy(
    name: string,
    outputMode: "blocking" | "async" | "none",
    stubPort = ports.stub,
    inputMode: "blocking" | "parallel" = "blocking",
  ): Promise<void> {
    const { deployment_id: id } = await api(
      T.Object({ deployment_id: T.String() }),
      orchestration,
      "/deployment/deploy",
      {
        model_name: name,
        pool_id: pool.pool_id,
        engine: "openai-compatible",
        image: "none",
        configuration: { endpoints: [`http://127.0.0.1:${stubPort}/v1`] },
      },
      token,
    );
    for (
      let i = 0;
      (
        await api(
          T.Object({ status: T.Unknown() }),
          orchestration,
          `/deployment/status/${id}`,
          undefined,
          token,
        )
      ).status !== "RUNNING";
      i++
    ) {
      if (i > 300) throw new Error("deployment not RUNNING");
      await Bun.sleep(100);
    }
    if (outputMode === "none") return;
    const policy = (type: string, config: unknown) =>
      api(T.Unknown(), filtration, `/management/config/${type}`, { deployment_id: id, config }, token);
    await policy("prompt", { template_id: template.id });
    await policy("rate_limit", { requests_per_minute: 100_000_000, tokens_per_minute: 1_000_000_000_000 });
    await policy("guardrails", {
      input: {
        pii: { action: "redact" },
        toxicity: { action: "block" },
        prompt_injection: { action: "block" },
        mode: inputMode,
      },
      output: { pii: { action: "redact" }, toxicity: { action: "block" }, mode: outputMode },
    });
  }
  await deploy("bench-on", "blocking");
  await deploy("bench-async", "async");
  await deploy("bench-off", "none");
  // The lifecycle on in front of the stub that answers after 20 ms (one-connection latency, #34).
  await deploy("bench-on-20", "blocking", ports.stub20);
  // The same with the input guardrails' parallel mode: toxicity and prompt injection beside the call.
  await deploy("bench-parallel", "blocking", ports.stub, "parallel");
  await deploy("bench-parallel-20", "blocking", ports.stub20, "parallel");
  const key = await createBenchKey(filtration, token);
  const auth = { authorization: `Bearer ${key}` };
  for (const gatewayUrl of gatewayUrls)
    for (const model of ["bench-on", "bench-off"]) {
      const check = await fetch(gatewayUrl, {
        method: "POST",
        headers: { "content-type": "application/json", ...auth },
        body: chatBody(model),
      });
      if (check.status !== 200) throw new Error(`gateway check: ${check.status} ${await check.text()}`);
      await check.arrayBuffer();
    }
  return { auth };
}

interface Setup {
  name: string;
  run(seconds?: number): Promise<WrkResult>;
  /** The process whose memory the row shows. */
  pid?: () => number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0
    ? Number.NaN
    : s.length % 2
      ? at(s, s.length >> 1)
      : (at(s, s.length / 2 - 1) + at(s, s.length / 2)) / 2;
};

/** Issue #34's figure: the CPU of a 10-turn conversation's tenth turn against its first. */
const conversationOf = async (p: PlatformProcess, quick = false) => {
  const lines: string[] = [];
  for (const shared of [false, true]) {
    const r = await conversationCpu({
      url: p.gatewayUrl,
      headers: p.auth,
      model: "bench-on",
      pid: p.proc.pid,
      cpuSeconds,
      shared,
      // Quick: 3 batches of 100 conversations (the full run: 10); /proc counts 10 ms ticks, so fewer
      // conversations a batch would blur the figure.
      ...(quick ? { batches: 3 } : {}),
    });
    lines.push(conversationCpuLine(p.store, r));
  }
  return lines.join("\n");
};

/** Collections per 10k requests of each platform row, every round (BUN_JSC_logGC's lines). */
const collections = new Map<string, { eden: number[]; full: number[] }>();

function recordCollections(
  name: string,
  before: { eden: number; full: number },
  after: { eden: number; full: number },
  requests: number,
): void {
  const per = collectionsPer10k(before, after, requests);
  const row = collections.get(name) ?? { eden: [], full: [] };
  row.eden.push(per.eden);
  row.full.push(per.full);
  collections.set(name, row);
}

function printCollections(): void {
  if (collections.size === 0) return;
  console.log("\nJavaScriptCore collections per 10k requests (median of the rounds), eden / full:");
  for (const [name, row] of collections)
    console.log(`  ${name}: ${median(row.eden).toFixed(0)} / ${median(row.full).toFixed(1)}`);
}

/** Issue #34: added p50 / p99 at one connection over the bare proxy, stub at 0 ms and at 20 ms. */
async function printOneConnection(platforms: PlatformProcess[]): Promise<void> {
  const seconds = Number(values["one-connection-seconds"] ?? (values.quick ? 3 : Math.min(duration, 8)));
  const gateways = (model: string, parallel: string) =>
    platforms
      .filter((p) => !p.tracing)
      .flatMap((p) =>
        (
          [
            [model, "lifecycle on"],
            [parallel, "lifecycle on, input scan parallel"],
          ] as const
        ).map(([m, what]) => ({
          name: `${p.store === "embedded" ? "embedded" : "PostgreSQL + Redis"}, ${what}`,
          url: p.gatewayUrl,
          body: chatBody(m),
          headers: p.auth,
        })),
      );
  const bareTarget = (port: number) => ({
    name: "bare Bun proxy",
    url: `http://127.0.0.1:${port}/v1/chat/completions`,
    body: chatBody("stub"),
    headers: {},
  });
  const plans: OneConnectionPlan[] = [
    { delayMs: 0, bare: bareTarget(ports.bare), gateways: gateways("bench-on", "bench-parallel") },
    { delayMs: 20, bare: bareTarget(ports.bare20), gateways: gateways("bench-on-20", "bench-parallel-20") },
  ];
  console.log(`\nadded latency at one connection (wrk -t1 -c1 -d${seconds}s, rounds interleaved):`);
  const lines = await oneConnectionLatency(plans, {
    rounds: Math.max(2, Number(values.rounds)),
    seconds,
    wrk: (url, body, headers, s, conns) => wrk(url, body, headers, s, conns),
    log: (line) => console.log(`  ${line}`),
  });
  for (const line of lines) console.log(line);
}

/** Issue #34's memory figures, per store, each on a fresh platform process (bench/gateway-memory.ts). */
async function memoryOf(stores: Store[]): Promise<string> {
  // Platform numbers 4 and 5 (the full run's are 0-3): each its own log.
  let memoryPlatform = 3;
  const kit: MemoryKit = {
    async start(store, env) {
      memoryPlatform++;
      const p = await startPlatformProcess(memoryPlatform, store, undefined, env);
      return {
        pid: p.proc.pid,
        gatewayUrl: p.gatewayUrl,
        auth: p.auth,
        // The platform's stderr (BUN_JSC_logGC's lines) has its own file (spawn).
        logPath: join(work, `platform-${memoryPlatform}.gc.log`),
        async stop() {
          p.proc.kill("SIGTERM");
          await p.proc.exited;
          if (p.dbUrl) await dropDatabase(p.dbUrl);
        },
      };
    },
    wrk: (url, body, headers, seconds, conns) => wrk(url, body, headers, seconds, conns),
    chatBody,
  };
  const seconds = Number(values["memory-seconds"]);
  const results = [];
  for (const store of stores) results.push(await measureMemory(kit, store, seconds));
  return memoryLines(results, seconds);
}

async function main() {
  const rounds = Number(values.rounds);
  const stores = values.stores.split(",").filter((s): s is Store => s === "embedded" || s === "postgres");
  const usable = stores.filter((s) => s === "embedded" || serverUrl());
  if (usable.length < stores.length)
    console.log("postgres skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL\n");
  console.log(
    `# gateway benchmark: wrk -t2 -c${connections} -d${duration}s, 1 KB prompt, ${rounds} round(s)\n`,
  );
  const sink = startSpanSink();
  spawn(["bun", "scripts/openai-stub.ts", String(ports.stub), "10", "20"], {}, "stub.log");
  await waitFor(`http://127.0.0.1:${ports.stub}/v1/models`, "stub");
  spawn(["bun", "scripts/openai-stub.ts", String(ports.stub20), "10", "20", "20"], {}, "stub20.log");
  await waitFor(`http://127.0.0.1:${ports.stub20}/v1/models`, "stub answering after 20 ms");
  const stubUrl = `http://127.0.0.1:${ports.stub}/v1/chat/completions`;
  if (values.apart) {
    if (!serverUrl() || !process.env.REDIS_URL)
      throw new Error("--apart needs BENCH_DATABASE_URL or TEST_DATABASE_URL, and REDIS_URL");
    await runApart(
      {
        duration,
        connections,
        rounds,
        only: values.only?.split(",").filter(Boolean),
        portBase: ports.apartBase,
        redisUrl: process.env.REDIS_URL,
        spawnPlatform,
        dataDirOf: (proc) => {
          const dir = dataDirs.get(proc);
          if (dir === undefined) throw new Error("no data folder for that process");
          return dir;
        },
        waitFor,
        setUpAsUser,
        createDatabase,
        dropDatabase,
        single: () => startPlatformProcess(0, "postgres", undefined),
        wrk,
        chatBody,
        cpuSeconds,
        median,
      },
      values.apart.split(",").map(Number),
    );
    return;
  }

  if (values["memory-only"]) {
    console.log(await memoryOf(usable));
    return;
  }

  if (values["conversation-only"]) {
    for (const store of usable) {
      const p = await startPlatformProcess(0, store, undefined);
      console.log(await conversationOf(p));
      p.proc.kill("SIGTERM");
      await p.proc.exited;
      if (p.dbUrl) await dropDatabase(p.dbUrl);
    }
    return;
  }

  const barePath = join(work, "bare-proxy.ts");
  writeFileSync(barePath, bareProxy(ports.bare, ports.stub));
  const bare = spawn(["bun", barePath], {}, "bare.log");
  await waitFor(`http://127.0.0.1:${ports.bare}/`, "bare proxy");
  const bare20Path = join(work, "bare-proxy-20.ts");
  writeFileSync(bare20Path, bareProxy(ports.bare20, ports.stub20));
  spawn(["bun", bare20Path], {}, "bare20.log");
  await waitFor(`http://127.0.0.1:${ports.bare20}/`, "bare proxy to the 20 ms stub");

  const setups: Setup[] = [
    { name: "(a) the stub directly", run: (seconds) => wrk(stubUrl, chatBody("stub"), {}, seconds) },
    {
      name: "(d) bare Bun proxy (16 lines, no lifecycle)",
      run: (seconds) =>
        wrk(`http://127.0.0.1:${ports.bare}/v1/chat/completions`, chatBody("stub"), {}, seconds),
      pid: () => bare.pid,
    },
  ];
  const portkeyStart = join(values["portkey-dir"], "node_modules/@portkey-ai/gateway/build/start-server.js");
  const portkeyHeaders = {
    "x-portkey-provider": "openai",
    "x-portkey-custom-host": `http://127.0.0.1:${ports.stub}/v1`,
    authorization: "Bearer unused",
  };
  if (values["skip-portkey"]) {
    // asked not to
  } else if (existsSync(portkeyStart)) {
    for (const [runtime, port] of [
      ["bun", ports.portkey],
      ...(values["portkey-node"] ? [["node", ports.portkeyNode] as const] : []),
    ] as const) {
      const portkey = spawn(
        [runtime, portkeyStart, `--port=${port}`, "--headless"],
        {},
        `portkey-${runtime}.log`,
      );
      await waitFor(`http://127.0.0.1:${port}/`, `portkey on ${runtime}`);
      setups.push({
        name: `(c) Portkey 1.15.2 run with ${runtime === "bun" ? "Bun" : "Node"}`,
        run: (seconds) =>
          wrk(`http://127.0.0.1:${port}/v1/chat/completions`, chatBody("stub"), portkeyHeaders, seconds),
        pid: () => portkey.pid,
      });
    }
  } else {
    console.log(`(c) skipped: Portkey not found at ${portkeyStart}\n`);
  }

  const platforms: PlatformProcess[] = [];
  for (const store of usable) {
    const label = store === "embedded" ? "embedded" : "PostgreSQL + Redis";
    const plain = await startPlatformProcess(platforms.length, store, undefined);
    platforms.push(plain);
    const traced = values["skip-tracing"]
      ? undefined
      : await startPlatformProcess(platforms.length, store, sink);
    if (traced) platforms.push(traced);
    const rows: Setup[] = [
      {
        name: `this platform, ${label}, lifecycle on`,
        run: (seconds) => wrk(plain.gatewayUrl, chatBody("bench-on"), plain.auth, seconds),
        pid: () => plain.proc.pid,
      },
      {
        name: `this platform, ${label}, lifecycle off`,
        run: (seconds) => wrk(plain.gatewayUrl, chatBody("bench-off"), plain.auth, seconds),
        pid: () => plain.proc.pid,
      },
    ];
    if (traced)
      rows.push({
        name: `this platform, ${label}, lifecycle on + tracing on`,
        run: (seconds) => wrk(traced.gatewayUrl, chatBody("bench-on"), traced.auth, seconds),
        pid: () => traced.proc.pid,
      });
    const only = values.only?.split(",").filter(Boolean);
    setups.push(...rows.filter((row) => !only || only.some((o) => row.name.includes(o))));
  }

  // A warm-up of each setup first (JIT, connection pools, caches), not counted.
  for (const setup of setups) await setup.run(2);
  const results = new Map<
    string,
    {
      rps: number[];
      ratio: number[];
      p50: number[];
      p99: number[];
      /** The process's CPU time per request, µs. */
      cpu: number[];
      errors: number;
      memory: string;
    }
  >();
  for (let round = 0; round < rounds; round++) {
    const rps = new Map<string, WrkResult>();
    for (const setup of setups) {
      const cpuBefore = setup.pid ? cpuSeconds(setup.pid()) : 0;
      const mainBefore = setup.pid ? cpuSeconds(setup.pid(), true) : 0;
      const gcLog = setup.pid ? gcLogs.get(setup.pid()) : undefined;
      const gcBefore = gcLog ? collectionsSoFar(gcLog) : undefined;
      const r = await setup.run();
      if (gcLog && gcBefore) recordCollections(setup.name, gcBefore, collectionsSoFar(gcLog), r.requests);
      const cpu = setup.pid
        ? ((cpuSeconds(setup.pid()) - cpuBefore) * 1e6) / Math.max(1, r.requests)
        : Number.NaN;
      // The event loop's share: the embedded database (and Bun's own helpers) run on other threads.
      const mainCpu = setup.pid
        ? ((cpuSeconds(setup.pid(), true) - mainBefore) * 1e6) / Math.max(1, r.requests)
        : Number.NaN;
      rps.set(setup.name, r);
      const mem = setup.pid ? rssMiB(setup.pid()) : undefined;
      const row = results.get(setup.name) ?? {
        rps: [],
        ratio: [],
        p50: [],
        p99: [],
        cpu: [],
        errors: 0,
        memory: "",
      };
      row.cpu.push(cpu);
      row.rps.push(r.rps);
      row.p50.push(r.p50);
      row.p99.push(r.p99);
      row.errors += r.errors;
      if (mem) row.memory = `${mem.rss} MB (peak ${mem.peak})`;
      results.set(setup.name, row);
      console.log(
        `round ${round + 1}: ${setup.name}: ${Math.round(r.rps)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, CPU ${cpu.toFixed(0)} µs/request (main thread ${mainCpu.toFixed(0)})`,
      );
    }
    const bareRps = rps.get(setups[1]?.name ?? "")?.rps ?? Number.NaN;
    for (const setup of setups)
      results.get(setup.name)?.ratio.push((rps.get(setup.name)?.rps ?? 0) / bareRps);
  }

  console.log(
    `\n| setup | requests/s (median of ${rounds}) | of the bare proxy, same round | p50 ms | p99 ms | CPU µs/request | errors | resident memory after |`,
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---|");
  for (const setup of setups) {
    const r = results.get(setup.name);
    if (!r) continue;
    console.log(
      `| ${setup.name} | ${Math.round(median(r.rps)).toLocaleString("en")} | ${median(r.ratio).toFixed(2)} | ${median(r.p50).toFixed(2)} | ${median(r.p99).toFixed(2)} | ${Number.isNaN(median(r.cpu)) ? "-" : median(r.cpu).toFixed(0)} | ${r.errors} | ${r.memory || "-"} |`,
    );
  }
  const portkeyBun = results.get("(c) Portkey 1.15.2 run with Bun");
  if (portkeyBun) {
    for (const setup of setups.filter((s) => s.name.endsWith("lifecycle on"))) {
      const r = results.get(setup.name);
      if (r)
        console.log(
          `${setup.name}: ${(median(r.rps) / median(portkeyBun.rps)).toFixed(2)} x Portkey run with Bun`,
        );
    }
  }
  printCollections();
  const { batches, bytes } = sink.stats();
  console.log(
    `\nspans exported by the traced platforms: ${batches} OTLP batches, ${(bytes / 1048576).toFixed(1)} MB`,
  );

  if (!values["skip-latency"]) await printOneConnection(platforms);
  if (!values["skip-latency"] && !values.quick) {
    const direct = await fixedRate(stubUrl, chatBody("stub"), {}, 500, duration);
    const sd = await streaming(stubUrl, chatBody("stub", true), {}, 50);
    console.log(
      `\nfixed 500 requests/s for ${duration} s, stub directly: p50 ${direct.p50.toFixed(3)} ms, p99 ${direct.p99.toFixed(2)} ms; streaming first token p50 ${sd.ttftP50.toFixed(2)} ms`,
    );
    for (const p of platforms.filter((x) => !x.tracing)) {
      const through = await fixedRate(p.gatewayUrl, chatBody("bench-on"), p.auth, 500, duration);
      console.log(
        `  ${p.store}, lifecycle on: p50 ${through.p50.toFixed(3)} ms (added ${(through.p50 - direct.p50).toFixed(3)}), p99 ${through.p99.toFixed(2)} ms (added ${(through.p99 - direct.p99).toFixed(2)}); failed ${direct.failed + through.failed}`,
      );
      for (const [model, what] of [
        ["bench-async", "output guardrails async"],
        ["bench-on", "output guardrails blocking"],
      ] as const) {
        const sg = await streaming(p.gatewayUrl, chatBody(model, true), p.auth, 50);
        console.log(
          `    streaming, ${what}: first token p50 ${sg.ttftP50.toFixed(2)} ms (+${(sg.ttftP50 - sd.ttftP50).toFixed(2)} ms); spacing p50 ${sg.gapP50.toFixed(1)} ms, p99 ${sg.gapP99.toFixed(1)} ms`,
        );
      }
    }
  }
  if (!values["skip-conversation"]) {
    console.log("\na conversation's tenth turn against its first, the gateway's CPU:");
    for (const p of platforms.filter((x) => !x.tracing)) console.log(await conversationOf(p, values.quick));
  }
  console.log("");
  for (const p of platforms) {
    const m = rssMiB(p.proc.pid);
    console.log(
      `platform process (${p.store}${p.tracing ? ", tracing" : ""}): resident ${m.rss} MB, peak ${m.peak} MB`,
    );
  }
  for (const p of platforms) p.proc.kill("SIGTERM");
  await Promise.all(platforms.map((p) => p.proc.exited));
  for (const p of platforms) if (p.dbUrl) await dropDatabase(p.dbUrl);
  if (!values["skip-memory"]) console.log(await memoryOf(usable));
}

await main();
process.exit(0);
