// The platform as a user runs it: requests through the inference gateway, SIGTERM right after the
// last answer, and after a restart every request is in the inference log (the batcher is flushed on
// graceful shutdown, not dropped).
import { afterAll, expect, test } from "bun:test";
import type { POST as loginRoute } from "#routes/filtration/auth/login.ts";
import type { POST as createKey } from "#routes/filtration/management/api-keys/index.ts";
import type { GET as deploymentLogs } from "#routes/filtration/management/deployments/[id]/logs.ts";
import type { POST as createPool } from "#routes/orchestration/deployment/createpool.ts";
import type { POST as deploy } from "#routes/orchestration/deployment/deploy.ts";
import type { GET as deploymentStatus } from "#routes/orchestration/deployment/status/[deployment_id].ts";
import { startOpenAiStub } from "#scripts/openai-stub.ts";
import { eventually } from "../orchestration/support.ts";
import { adminEmail, adminPassword, fetchJson } from "../support/app.ts";
import { createEmptyPostgresDatabase, usingPostgres } from "../support/database.ts";
import { type RunningPlatform, runPlatform } from "../support/process.ts";
import { tempDirs } from "../support/temp.ts";

const stub = startOpenAiStub();
const running: RunningPlatform[] = [];
const cleanups: (() => Promise<void>)[] = [];
const temp = tempDirs();
afterAll(async () => {
  for (const p of running) if (p.proc.exitCode === null) await p.stop("SIGKILL");
  for (const c of cleanups) await c();
  stub.stop();
  temp.remove();
}, 30_000);

test("every request is logged when the gateway is stopped with SIGTERM right after", async () => {
  const env: Record<string, string> = {
    DATA_DIR: temp.make("llmp-sigterm-"),
    ADMIN_EMAIL: adminEmail,
    ADMIN_PASSWORD: adminPassword,
  };
  if (usingPostgres) {
    const db = await createEmptyPostgresDatabase();
    cleanups.push(db.drop);
    env.DATABASE_URL = db.url;
  }
  const first = await runPlatform(env);
  running.push(first);
  const filtration = `http://127.0.0.1:${first.ports.filtration}`;
  const orchestration = `http://127.0.0.1:${first.ports.orchestration}`;
  const login = await fetchJson<typeof loginRoute>(`${filtration}/auth/login`, {
    body: { email: adminEmail, password: adminPassword },
  });
  const token = login.body.access_token;
  const pool = await fetchJson<typeof createPool>(`${orchestration}/deployment/createpool`, {
    token,
    body: { pool_name: "stub-pool", provider: "external" },
  });
  expect(pool.status).toBe(201);
  const deployed = await fetchJson<typeof deploy>(`${orchestration}/deployment/deploy`, {
    token,
    body: {
      model_name: "stub-chat",
      pool_id: pool.body.pool_id,
      engine: "openai-compatible",
      image: "none",
      configuration: { endpoints: [stub.baseUrl] },
    },
  });
  expect(deployed.status).toBe(201);
  const id = deployed.body.deployment_id;
  await eventually(
    async () =>
      (await fetchJson<typeof deploymentStatus>(`${orchestration}/deployment/status/${id}`, { token })).body
        .status === "RUNNING",
    20_000,
    "deployment RUNNING",
  );
  const key = (
    await fetchJson<typeof createKey>(`${filtration}/management/api-keys`, {
      token,
      body: { name: "sigterm" },
    })
  ).body.key;

  const total = 120;
  const statuses = await Promise.all(
    Array.from({ length: total }, async (_, i) => {
      const response = await fetch(`http://127.0.0.1:${first.ports.inference}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({
          model: "stub-chat",
          messages: [{ role: "user", content: `request ${i}` }],
          stream: i % 3 === 0,
        }),
      });
      await response.arrayBuffer();
      return response.status;
    }),
  );
  expect(statuses.every((s) => s === 200)).toBe(true);
  // At once: the batcher's interval (1 s) has not come round for most of them.
  expect(await first.stop("SIGTERM")).toBe(0);

  const second = await runPlatform(env);
  running.push(second);
  const filtration2 = `http://127.0.0.1:${second.ports.filtration}`;
  const token2 = (
    await fetchJson<typeof loginRoute>(`${filtration2}/auth/login`, {
      body: { email: adminEmail, password: adminPassword },
    })
  ).body.access_token;
  const logged: { status: number; stream: boolean; total_tokens: number }[] = [];
  let cursor: string | undefined;
  do {
    const page = await fetchJson<typeof deploymentLogs>(
      `${filtration2}/management/deployments/${id}/logs?limit=500${cursor ? `&cursor=${cursor}` : ""}`,
      { token: token2 },
    );
    expect(page.status).toBe(200);
    logged.push(...page.body.items);
    cursor = page.body.next_cursor ?? undefined;
  } while (cursor);
  expect(logged.length).toBe(total);
  expect(logged.filter((l) => l.stream).length).toBe(total / 3);
  expect(logged.every((l) => l.status === 200 && l.total_tokens > 0)).toBe(true);
  expect(await second.stop("SIGTERM")).toBe(0);
}, 90_000);
