// PostgreSQL going away under a running gateway (docs/failure-modes.md). The platform runs as its own
// process on a PostgreSQL reached through a TCP proxy the test cuts: while it is cut, a key the gateway
// has seen keeps being served from its context cache, a key it has not seen gets 503 at once (not a
// hang, not a 500), /ready says so; once the proxy is back, everything works again without a restart
// and the inference logs of the requests served during the outage reach the database.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import type { OpenAIError } from "#contracts/openai/error.ts";
import { type DatabaseHandle, openDatabase } from "#db/client.ts";
import { inferenceLogs } from "#db/schema/index.ts";
import type { POST as loginRoute } from "#routes/filtration/auth/login.ts";
import type { POST as createKey } from "#routes/filtration/management/api-keys/index.ts";
import { type OpenAiStub, startOpenAiStub } from "#scripts/openai-stub.ts";
import { insertDeployment } from "../management/support.ts";
import { createEmptyPostgresDatabase, usingPostgres } from "../support/database.ts";
import { type ErrorBody, fetchJson, type ReadinessBody } from "../support/json.ts";
import { type RunningPlatform, runPlatform } from "../support/process.ts";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.ts";
import { until } from "../support/wait.ts";

const admin = { ADMIN_EMAIL: "admin@example.com", ADMIN_PASSWORD: "correct horse battery staple" };

let database: { url: string; drop(): Promise<void> } | undefined;
let direct: DatabaseHandle | undefined;
let proxy: TcpProxy | undefined;
let platform: RunningPlatform | undefined;
let stub: OpenAiStub | undefined;
let dataDir: string | undefined;
let inference = "";
let filtration = "";
let model = "";
const keys: string[] = [];

beforeAll(async () => {
  if (!usingPostgres) return;
  database = await createEmptyPostgresDatabase();
  const target = new URL(database.url);
  proxy = startTcpProxy({ hostname: target.hostname, port: Number(target.port || 5432) });
  const viaProxy = new URL(database.url);
  viaProxy.hostname = "127.0.0.1";
  viaProxy.port = String(proxy.port);
  dataDir = mkdtempSync(join(tmpdir(), "llmp-pg-outage-"));
  platform = await runPlatform({
    ...admin,
    DATA_DIR: dataDir,
    DATABASE_URL: viaProxy.toString(),
    SERVICES: "inference,filtration",
  });
  inference = `http://127.0.0.1:${platform.ports.inference}`;
  filtration = `http://127.0.0.1:${platform.ports.filtration}`;
  direct = await openDatabase({ url: database.url, maxConnections: 2 });
  const login = await post<typeof loginRoute>(`${filtration}/auth/login`, {
    email: admin.ADMIN_EMAIL,
    password: admin.ADMIN_PASSWORD,
  });
  const session = login.body;
  stub = startOpenAiStub();
  model = `pg-outage-${crypto.randomUUID().slice(0, 8)}`;
  await insertDeployment(direct.db, session.user.org_id, {
    name: model,
    replicas: [{ state: "READY", endpoint: stub.baseUrl }],
  });
  for (const name of ["seen", "unseen"]) {
    const res = await post<typeof createKey>(
      `${filtration}/management/api-keys`,
      { name },
      session.access_token,
    );
    keys.push(res.body.key);
  }
}, 60_000);

afterAll(async () => {
  proxy?.restore();
  await platform?.stop();
  stub?.stop();
  await direct?.close();
  proxy?.stop();
  await database?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 30_000);

const post = <R = unknown>(url: string, body: unknown, token?: string) =>
  fetchJson<R>(url, { method: "POST", body, token });

/** `chat<OpenAIError>(key)` where the test reads a refusal. */
const chat = <R = unknown>(key: string) =>
  post<R>(`${inference}/v1/chat/completions`, { model, messages: [{ role: "user", content: "Hi" }] }, key);

test.skipIf(!usingPostgres)(
  "cached contexts keep serving, unknown keys get 503 at once, and it all recovers without a restart",
  async () => {
    const [seen, unseen] = keys as [string, string];
    expect((await chat(seen)).status).toBe(200);

    proxy?.cut();
    const started = performance.now();
    const served = await Promise.all([chat(seen), chat(seen), chat(seen)]);
    expect(served.map((r) => r.status)).toEqual([200, 200, 200]);
    const refused = await chat<OpenAIError>(unseen);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.body.error.code).toBe("deployment_unavailable");
    const signIn = await post<ErrorBody>(`${filtration}/auth/login`, {
      email: admin.ADMIN_EMAIL,
      password: "whatever",
    });
    expect(signIn.status).toBe(503);
    expect(signIn.body.error.code).toBe("unavailable");
    const ready = await fetchJson<ReadinessBody>(`${inference}/ready`);
    expect(ready.status).toBe(503);
    expect(ready.body.checks.database).not.toBe("ok");
    // Nothing waited for the database: connections are refused, and every answer came at once.
    expect(performance.now() - started).toBeLessThan(5000);
    const metrics = await (await fetch(`${filtration}/metrics`)).text();
    expect(metrics).toMatch(/^database_unreachable_errors_total \d+$/m);

    proxy?.restore();
    // The database back, as the gateway finds out on its own: asked until a request is served.
    const status = await until(
      async () => {
        const served = (await chat(unseen)).status;
        return served === 200 && served;
      },
      { what: "a chat served once the database is back", timeoutMs: 10_000, intervalMs: 200 },
    );
    expect(status).toBe(200);
    expect((await fetch(`${inference}/ready`)).status).toBe(200);
    // The log entries of the outage were kept and written once the database was back: the first chat,
    // the three served during the outage, the refused one and the recovery's.
    // Database rows: polled.
    const logged = await until(
      async () => {
        const rows = await (direct as DatabaseHandle).db
          .select()
          .from(inferenceLogs)
          .where(eq(inferenceLogs.model, model));
        return rows.length >= 6 && rows.length;
      },
      { what: "six log rows of the model", timeoutMs: 10_000, intervalMs: 200 },
    );
    expect(logged).toBeGreaterThanOrEqual(6);
  },
  60_000,
);
