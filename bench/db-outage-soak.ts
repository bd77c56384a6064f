// A soak with the database cut in the middle: the platform runs as its own process (inference and
// filtration gateways) on PostgreSQL reached through a TCP proxy, callers send chats back to back to a
// fixed-price stub upstream, and halfway through the proxy is cut (connections refused: the database
// stopped) or blackholed (a silent partition) for `--outage` seconds. At the end it counts the requests
// answered 200 and the inference-log rows written for them: they must be equal (docs/failure-modes.md).
//
//   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test bun bench/db-outage-soak.ts
//     [--duration 300] [--outage 10] [--workers 4] [--mode cut|blackhole]
//
// Prints one JSON object; exits 1 when a request answered was not logged or the process died.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Type as T } from "@sinclair/typebox";
import { and, count, eq } from "drizzle-orm";
import { openDatabase } from "#db/client.ts";
import { inferenceLogs } from "#db/schema/index.ts";
import { checked } from "#scripts/checked.ts";
import { startOpenAiStub } from "#scripts/openai-stub.ts";
import { insertDeployment } from "../tests/management/support.ts";
import { createEmptyPostgresDatabase } from "../tests/support/database.ts";
import { runPlatform } from "../tests/support/process.ts";
import { startTcpProxy } from "../tests/support/tcp-proxy.ts";

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "300" },
    outage: { type: "string", default: "10" },
    workers: { type: "string", default: "4" },
    mode: { type: "string", default: "cut" },
  },
});
const durationS = Number(values.duration);
const outageS = Number(values.outage);
const workers = Number(values.workers);
const mode = values.mode === "blackhole" ? "blackhole" : "cut";
if (!(durationS > outageS && outageS > 0 && workers > 0)) throw new Error("need duration > outage > 0");
if (!process.env.TEST_DATABASE_URL) throw new Error("set TEST_DATABASE_URL to a PostgreSQL server");

const admin = { ADMIN_EMAIL: "admin@example.com", ADMIN_PASSWORD: "correct horse battery staple" };
console.error("creating the database");
const database = await createEmptyPostgresDatabase();
const target = new URL(database.url);
const proxy = startTcpProxy({ hostname: target.hostname, port: Number(target.port || 5432) });
const viaProxy = new URL(database.url);
viaProxy.hostname = "127.0.0.1";
viaProxy.port = String(proxy.port);
const dataDir = mkdtempSync(join(tmpdir(), "llmp-soak-"));
console.error("starting the platform");
const platform = await runPlatform({
  ...admin,
  DATA_DIR: dataDir,
  DATABASE_URL: viaProxy.toString(),
  SERVICES: "inference,filtration",
});
const stub = startOpenAiStub();
const direct = await openDatabase({ url: database.url, maxConnections: 2 });

const post = (url: string, body: unknown, token?: string) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });

const inference = `http://127.0.0.1:${platform.ports.inference}`;
const filtration = `http://127.0.0.1:${platform.ports.filtration}`;
const login = await post(`${filtration}/auth/login`, {
  email: admin.ADMIN_EMAIL,
  password: admin.ADMIN_PASSWORD,
});
const session = checked(
  T.Object({ access_token: T.String(), user: T.Object({ org_id: T.String() }) }),
  await login.json(),
  "login",
);
const model = `soak-${crypto.randomUUID().slice(0, 8)}`;
await insertDeployment(direct.db, session.user.org_id, {
  name: model,
  replicas: [{ state: "READY", endpoint: stub.baseUrl }],
});
const keyResponse = await post(`${filtration}/management/api-keys`, { name: "soak" }, session.access_token);
const { key } = checked(T.Object({ key: T.String() }), await keyResponse.json(), "api key");

let served = 0;
const refused = new Map<string, number>();
/** The slowest answer that was not a 200, during and after the outage (ms). */
let slowestRefusalMs = 0;
let running = true;
const traffic = Array.from({ length: workers }, async () => {
  while (running) {
    const started = performance.now();
    let outcome: string;
    try {
      const response = await post(
        `${inference}/v1/chat/completions`,
        { model, messages: [{ role: "user", content: "Hi" }] },
        key,
      );
      await response.arrayBuffer();
      outcome = String(response.status);
    } catch (error) {
      outcome = `error ${error instanceof Error ? error.name : typeof error}`;
    }
    if (outcome === "200") served++;
    else {
      refused.set(outcome, (refused.get(outcome) ?? 0) + 1);
      slowestRefusalMs = Math.max(slowestRefusalMs, performance.now() - started);
    }
  }
});

const progress = (what: string) =>
  console.error(`${new Date().toISOString()} ${what}: ${served} answered 200 so far`);
progress("traffic started");
const began = performance.now();
await Bun.sleep(((durationS - outageS) / 2) * 1000);
const servedBefore = served;
progress(`database ${mode}`);
if (mode === "cut") proxy.cut();
else proxy.blackhole();
await Bun.sleep(outageS * 1000);
const servedDuring = served - servedBefore;
proxy.restore();
progress("database back");
await Bun.sleep(Math.max(0, durationS * 1000 - (performance.now() - began)));
running = false;
await Promise.all(traffic);
progress("traffic stopped");
const alive = platform.proc.exitCode === null;

const loggedNow = async () => {
  const [row] = await direct.db
    .select({ n: count() })
    .from(inferenceLogs)
    .where(and(eq(inferenceLogs.model, model), eq(inferenceLogs.status, 200)));
  return Number(row?.n ?? 0);
};
// The writer catches up after the outage: wait for it (at most a minute).
let logged = await loggedNow();
const waitUntil = Date.now() + 60_000;
while (logged < served && Date.now() < waitUntil) {
  await Bun.sleep(500);
  logged = await loggedNow();
}

const report = {
  mode,
  duration_s: durationS,
  outage_s: outageS,
  workers,
  answered_200: served,
  logged_200: logged,
  equal: logged === served,
  served_during_outage: servedDuring,
  not_200: Object.fromEntries(refused),
  slowest_not_200_ms: Math.round(slowestRefusalMs),
  process_alive: alive,
};
console.log(JSON.stringify(report, null, 2));

await platform.stop();
stub.stop();
await direct.close();
proxy.stop();
await database.drop();
rmSync(dataDir, { recursive: true, force: true });
process.exit(report.equal && alive ? 0 : 1);
