// The database may vanish under load (docs/failure-modes.md): the platform runs as its own process on
// PostgreSQL reached through a TCP proxy, with traffic going through its inference gateway, while its
// database connections are killed (pg_terminate_backend), the database stops (connections refused),
// or goes silent (a partition: TCP open, nothing answering). Each time the process stays up, answers
// 503 at once rather than hanging, recovers without a restart, and logs every request it answered.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, count, eq } from "drizzle-orm";
import postgres from "postgres";
import { type DatabaseHandle, openDatabase } from "#db/client.ts";
import { inferenceLogs } from "#db/schema/index.ts";
import type { POST as loginRoute } from "#routes/filtration/auth/login.ts";
import type { POST as createKey } from "#routes/filtration/management/api-keys/index.ts";
import { type OpenAiStub, startOpenAiStub } from "#scripts/openai-stub.ts";
import { insertDeployment } from "../management/support.ts";
import { eventually } from "../orchestration/support.ts";
import { createEmptyPostgresDatabase, usingPostgres } from "../support/database.ts";
import { jsonBody } from "../support/json.ts";
import { type RunningPlatform, runPlatform } from "../support/process.ts";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.ts";
import { simulateDelay } from "../support/wait.ts";

const admin = { ADMIN_EMAIL: "admin@example.com", ADMIN_PASSWORD: "correct horse battery staple" };

interface Setup {
  database: { url: string; drop(): Promise<void> };
  direct: DatabaseHandle;
  proxy: TcpProxy;
  platform: RunningPlatform;
  stub: OpenAiStub;
  dataDir: string;
  inference: string;
  filtration: string;
  model: string;
  key: string;
}

let s: Setup | undefined;

const post = (url: string, body: unknown, token?: string) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  });

beforeAll(async () => {
  if (!usingPostgres) return;
  const database = await createEmptyPostgresDatabase();
  const target = new URL(database.url);
  const proxy = startTcpProxy({ hostname: target.hostname, port: Number(target.port || 5432) });
  const viaProxy = new URL(database.url);
  viaProxy.hostname = "127.0.0.1";
  viaProxy.port = String(proxy.port);
  const dataDir = mkdtempSync(join(tmpdir(), "llmp-db-loss-"));
  const platform = await runPlatform({
    ...admin,
    DATA_DIR: dataDir,
    DATABASE_URL: viaProxy.toString(),
    SERVICES: "inference,filtration",
    // Short limits keep the partition test short; the defaults are 5 s.
    DATABASE_STATEMENT_TIMEOUT_MS: "1500",
    DATABASE_CONNECT_TIMEOUT_MS: "1500",
  });
  const inference = `http://127.0.0.1:${platform.ports.inference}`;
  const filtration = `http://127.0.0.1:${platform.ports.filtration}`;
  const direct = await openDatabase({ url: database.url, maxConnections: 2 });
  const login = await post(`${filtration}/auth/login`, {
    email: admin.ADMIN_EMAIL,
    password: admin.ADMIN_PASSWORD,
  });
  const session = await jsonBody<typeof loginRoute>(login);
  const stub = startOpenAiStub();
  const model = `db-loss-${crypto.randomUUID().slice(0, 8)}`;
  await insertDeployment(direct.db, session.user.org_id, {
    name: model,
    replicas: [{ state: "READY", endpoint: stub.baseUrl }],
  });
  const res = await post(`${filtration}/management/api-keys`, { name: "load" }, session.access_token);
  const key = (await jsonBody<typeof createKey>(res)).key;
  s = { database, direct, proxy, platform, stub, dataDir, inference, filtration, model, key };
}, 60_000);

afterAll(async () => {
  if (!s) return;
  s.proxy.restore();
  await s.platform.stop();
  s.stub.stop();
  await s.direct.close();
  s.proxy.stop();
  await s.database.drop();
  rmSync(s.dataDir, { recursive: true, force: true });
}, 30_000);

interface Load {
  /** Requests answered 200 (each must be logged). */
  served: number;
  /** Non-200 answers: status and how long each took. */
  refused: { status: number; ms: number }[];
  stop(): Promise<void>;
}

/** `workers` callers sending chats back to back until stopped. */
function load(setup: Setup, workers = 8): Load {
  let running = true;
  const state: Load = {
    served: 0,
    refused: [],
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
  const loops = Array.from({ length: workers }, async () => {
    while (running) {
      const started = performance.now();
      try {
        const response = await post(
          `${setup.inference}/v1/chat/completions`,
          { model: setup.model, messages: [{ role: "user", content: "Hi" }] },
          setup.key,
        );
        await response.arrayBuffer();
        if (response.status === 200) state.served++;
        else state.refused.push({ status: response.status, ms: performance.now() - started });
      } catch {
        state.refused.push({ status: 0, ms: performance.now() - started });
      }
    }
  });
  return state;
}

const loggedServed = async (setup: Setup) => {
  const [row] = await setup.direct.db
    .select({ n: count() })
    .from(inferenceLogs)
    .where(and(eq(inferenceLogs.model, setup.model), eq(inferenceLogs.status, 200)));
  return Number(row?.n ?? 0);
};

/** Every request answered 200 so far reaches inference_logs (the writer retries, then catches up). */
async function expectAllLogged(setup: Setup, served: number) {
  const logged = await eventually(async () => {
    const n = await loggedServed(setup);
    return n >= served ? n : undefined;
  }, 30_000);
  expect(logged).toBe(served);
}

async function expectAlive(setup: Setup) {
  if (setup.platform.proc.exitCode !== null)
    console.log(setup.platform.output.slice(-8).join("\n"), await setup.platform.stderr);
  expect(setup.platform.proc.exitCode).toBeNull();
  expect((await fetch(`${setup.inference}/health`)).status).toBe(200);
  const chat = await post(
    `${setup.inference}/v1/chat/completions`,
    { model: setup.model, messages: [{ role: "user", content: "Hi" }] },
    setup.key,
  );
  expect(chat.status).toBe(200);
  return 1;
}

describe.skipIf(!usingPostgres)("PostgreSQL lost under load", () => {
  test("pg_terminate_backend of every platform connection, five times: the process lives, every answered request is logged", async () => {
    const setup = s as Setup;
    const before = await loggedServed(setup);
    const killer = postgres(setup.database.url, { max: 1, onnotice: () => {} });
    const traffic = load(setup);
    try {
      // Traffic runs between the kills and after them: the delays are the scenario.
      for (let i = 0; i < 5; i++) {
        await simulateDelay(400);
        await killer`select pg_terminate_backend(pid) from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid()`;
      }
      await simulateDelay(500);
    } finally {
      await traffic.stop();
      await killer.end();
    }
    expect(traffic.served).toBeGreaterThan(0);
    const served = before + traffic.served + (await expectAlive(setup));
    await expectAllLogged(setup, served);
  }, 90_000);

  test("the database stopped (connections refused): 503s at once, then recovery, every answered request logged", async () => {
    const setup = s as Setup;
    const before = await loggedServed(setup);
    const traffic = load(setup);
    // Traffic before, during a 3 s outage and 1.5 s after it: the delays are the scenario.
    await simulateDelay(300);
    setup.proxy.cut();
    await simulateDelay(3000);
    const unseen = await timed(() => signIn(setup));
    setup.proxy.restore();
    await simulateDelay(1500);
    await traffic.stop();
    // Sign-in needs the database: refused at once, not after a connect time-out.
    expect(unseen.status).toBe(503);
    expect(unseen.ms).toBeLessThan(1000);
    expect(traffic.served).toBeGreaterThan(0);
    const served = before + traffic.served + (await expectAlive(setup));
    await expectAllLogged(setup, served);
  }, 90_000);

  test("a silent partition (TCP open, nothing answering): answers within the time-outs, not hangs; recovery; every answered request logged", async () => {
    const setup = s as Setup;
    const before = await loggedServed(setup);
    const traffic = load(setup);
    // Traffic before, during a partition of 2 s past the first two answers, and 2 s after it.
    await simulateDelay(300);
    setup.proxy.blackhole();
    // The first query to meet the silence waits out its deadline (1.5 s + 1 s here); after it the
    // database is known unreachable and answers come at once.
    const first = await timed(() => signIn(setup));
    const next = await timed(() => signIn(setup));
    await simulateDelay(2000);
    setup.proxy.restore();
    await simulateDelay(2000);
    await traffic.stop();
    expect(first.status).toBe(503);
    expect(first.ms).toBeLessThan(6000);
    expect(next.status).toBe(503);
    expect(next.ms).toBeLessThan(1000);
    const served = before + traffic.served + (await expectAlive(setup));
    await expectAllLogged(setup, served);
  }, 90_000);
});

const signIn = (setup: Setup) =>
  post(`${setup.filtration}/auth/login`, { email: admin.ADMIN_EMAIL, password: "not the password" });

async function timed(send: () => Promise<Response>): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const response = await send();
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - started };
}
