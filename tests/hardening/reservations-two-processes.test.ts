// Two platform processes (inference and filtration gateways each) sharing one PostgreSQL and one Redis,
// as behind a load balancer: a key's daily budget of 10, calls that reserve and cost exactly 1.0 (5
// completion tokens at 200,000 a million, max_tokens 5), 100 calls split over both at once: exactly 10
// served between them, 90 refused with 429 insufficient_quota, and the spend recorded is 10.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq, sql } from "drizzle-orm";
import type { OpenAIError } from "#contracts/openai/error.ts";
import { type DatabaseHandle, openDatabase } from "#db/client.ts";
import { deployments, spendDaily } from "#db/schema/index.ts";
import type { POST as loginRoute } from "#routes/filtration/auth/login.ts";
import type { POST as createKey } from "#routes/filtration/management/api-keys/index.ts";
import { type OpenAiStub, startOpenAiStub } from "#scripts/openai-stub.ts";
import { insertDeployment } from "../management/support.ts";
import { eventually } from "../orchestration/support.ts";
import { createEmptyPostgresDatabase, usingPostgres } from "../support/database.ts";
import { jsonBody } from "../support/json.ts";
import { type RunningPlatform, runPlatform } from "../support/process.ts";
import { startTestRedis, type TestRedis } from "../support/redis-server.ts";

const admin = { ADMIN_EMAIL: "admin@example.com", ADMIN_PASSWORD: "correct horse battery staple" };

let database: { url: string; drop(): Promise<void> } | undefined;
let redis: TestRedis | undefined;
let direct: DatabaseHandle | undefined;
let stub: OpenAiStub | undefined;
const platforms: RunningPlatform[] = [];
const dataDirs: string[] = [];

const post = (url: string, body: unknown, token?: string) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  if (!usingPostgres) return;
  database = await createEmptyPostgresDatabase();
  redis = await startTestRedis();
  // One after the other: the first creates the schema and the administrator.
  for (let i = 0; i < 2; i++) {
    const dataDir = mkdtempSync(join(tmpdir(), "llmp-two-"));
    dataDirs.push(dataDir);
    platforms.push(
      await runPlatform({
        ...admin,
        DATA_DIR: dataDir,
        DATABASE_URL: database.url,
        REDIS_URL: redis.url,
        SERVICES: "inference,filtration",
      }),
    );
  }
  direct = await openDatabase({ url: database.url, maxConnections: 2 });
  stub = startOpenAiStub();
}, 90_000);

afterAll(async () => {
  for (const p of platforms) await p.stop();
  stub?.stop();
  await direct?.close();
  await redis?.stop();
  await database?.drop();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe.skipIf(!usingPostgres)("two platform processes, one PostgreSQL, one Redis", () => {
  test("a key's budget of 10 at 1.0 a call: 100 calls split over both processes serve exactly 10", async () => {
    const [a, b] = platforms as [RunningPlatform, RunningPlatform];
    const filtration = `http://127.0.0.1:${a.ports.filtration}`;
    const login = await post(`${filtration}/auth/login`, {
      email: admin.ADMIN_EMAIL,
      password: admin.ADMIN_PASSWORD,
    });
    const session = await jsonBody<typeof loginRoute>(login);
    const model = `two-${crypto.randomUUID().slice(0, 8)}`;
    const db = (direct as DatabaseHandle).db;
    const { id: deploymentId } = await insertDeployment(db, session.user.org_id, {
      name: model,
      replicas: [{ state: "READY", endpoint: (stub as OpenAiStub).baseUrl }],
    });
    await db
      .update(deployments)
      .set({ inputPricePerMillion: 0, outputPricePerMillion: 200_000 })
      .where(eq(deployments.id, deploymentId));
    const created = await post(`${filtration}/management/api-keys`, { name: "two" }, session.access_token);
    const { id: keyId, key } = await jsonBody<typeof createKey>(created);
    const budget = await post(
      `${filtration}/management/config/budget`,
      { api_key_id: keyId, config: { max_spend_per_day: 10 } },
      session.access_token,
    );
    expect(budget.status).toBe(200);

    const gateways = [a, b].map((p) => `http://127.0.0.1:${p.ports.inference}`);
    const answers = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        const response = await post(
          `${gateways[i % 2]}/v1/chat/completions`,
          { model, max_tokens: 5, messages: [{ role: "user", content: "Hi there" }] },
          key,
        );
        const body = await jsonBody<Partial<OpenAIError>>(response);
        return response.status === 200 ? "200" : `${response.status} ${body.error?.code}`;
      }),
    );
    const codes: Record<string, number> = {};
    for (const code of answers) codes[code] = (codes[code] ?? 0) + 1;
    expect(codes).toEqual({ "200": 10, "429 insufficient_quota": 90 });
    // Both processes' usage reaches the database: 10.0 spent.
    const spent = await eventually(async () => {
      const [row] = await db
        .select({ cost: sql<number>`coalesce(sum(${spendDaily.cost}), 0)`.mapWith(Number) })
        .from(spendDaily)
        .where(eq(spendDaily.apiKeyId, keyId));
      return (row?.cost ?? 0) >= 10 ? row?.cost : undefined;
    }, 20_000);
    expect(spent).toBeCloseTo(10, 9);
  }, 60_000);
});
