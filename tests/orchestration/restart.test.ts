// The orchestration process restarted in the middle (`bun main.ts`, real signals): running
// workers survive it and are adopted (same process, still RUNNING), one that died meanwhile is
// started again, state comes back from the database, and a worker nobody wants any more (an orphan)
// is stopped. Nothing is left behind.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import {
  INSTALLATION_ENV,
  installationTag,
  isAlive,
  pidOf,
  REPLICA_ENV,
  taggedProcesses,
} from "#adapters/providers/local/processes.ts";
import type { POST as signIn } from "#routes/filtration/auth/login.ts";
import type { POST as createPool } from "#routes/orchestration/deployment/createpool.ts";
import type { POST as deploy } from "#routes/orchestration/deployment/deploy.ts";
import type { GET as deploymentStatus } from "#routes/orchestration/deployment/status/[deployment_id].ts";
import type { POST as terminate } from "#routes/orchestration/deployment/terminate.ts";
import { writeTinyGguf } from "#scripts/make-tiny-gguf.ts";
import { createEmptyPostgresDatabase, usingPostgres } from "../support/database.ts";
import { fetchJson } from "../support/json.ts";
import { type RunningPlatform, runPlatform } from "../support/process.ts";
import { eventually, firstReplica } from "./support.ts";

const dataDir = mkdtempSync(join(tmpdir(), "llmp-restart-"));
const admin = { ADMIN_EMAIL: "ops@example.com", ADMIN_PASSWORD: "a long enough password" };
let platform: RunningPlatform | undefined;
let dropDatabase: (() => Promise<void>) | undefined;

afterAll(async () => {
  await platform?.stop();
  for (const p of taggedProcesses(installationTag(dataDir))) process.kill(-p.pid, "SIGKILL");
  await dropDatabase?.();
  rmSync(dataDir, { recursive: true, force: true });
});

/** `fetchJson` on a port: `api<typeof POST>(...)` types the body as that route's success answer. */
const api = <R>(port: number, token: string | undefined, method: string, path: string, body?: unknown) =>
  fetchJson<R>(`http://127.0.0.1:${port}${path}`, { method, token, body });

test("a restart adopts running workers, recovers state and stops orphans", async () => {
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    SERVICES: "filtration,orchestration",
    HEARTBEAT_INTERVAL_MS: "1000",
    ...admin,
  };
  if (usingPostgres) {
    const database = await createEmptyPostgresDatabase();
    env.DATABASE_URL = database.url;
    dropDatabase = database.drop;
  }
  const model = join(dataDir, "tiny.gguf");
  writeTinyGguf(model);

  platform = await runPlatform(env);
  let { orchestration, filtration } = platform.ports as { orchestration: number; filtration: number };
  const login = await api<typeof signIn>(filtration, undefined, "POST", "/auth/login", {
    email: admin.ADMIN_EMAIL,
    password: admin.ADMIN_PASSWORD,
  });
  const token = login.body.access_token;
  const pool = await api<typeof createPool>(orchestration, token, "POST", "/deployment/createpool", {
    pool_name: "here",
  });
  const deployed = await api<typeof deploy>(orchestration, token, "POST", "/deployment/deploy", {
    model_name: "survivor",
    pool_id: pool.body.pool_id,
    image: "llama.cpp",
    inference_model: model,
  });
  expect(deployed.status).toBe(201);
  const id = deployed.body.deployment_id;
  const second = await api<typeof deploy>(orchestration, token, "POST", "/deployment/deploy", {
    model_name: "dies-meanwhile",
    pool_id: pool.body.pool_id,
    image: "llama.cpp",
    inference_model: model,
  });
  const secondId = second.body.deployment_id;
  const statusOf = async (which: string) =>
    (await api<typeof deploymentStatus>(orchestration, token, "GET", `/deployment/status/${which}`)).body;
  const status = () => statusOf(id);
  const runningOf = (which: string) =>
    eventually(
      async () => {
        const d = await statusOf(which);
        return d.status === "RUNNING" ? d : undefined;
      },
      60_000,
      "RUNNING",
    );
  const before = await runningOf(id);
  const pid = pidOf(firstReplica(before).provider_instance_id ?? "") as number;
  const secondPid = pidOf(firstReplica(await runningOf(secondId)).provider_instance_id ?? "") as number;

  // The orchestration process goes away; its worker does not.
  expect(await platform.stop()).toBe(0);
  platform = undefined;
  expect(isAlive(pid)).toBe(true);
  // One worker dies while nobody watches: the next start restarts it.
  process.kill(secondPid, "SIGKILL");

  // Meanwhile a worker of this installation appears that no replica wants: an orphan.
  const orphan = Bun.spawn([process.execPath, "-e", "setInterval(() => {}, 1000)"], {
    env: { ...process.env, [INSTALLATION_ENV]: installationTag(dataDir), [REPLICA_ENV]: crypto.randomUUID() },
    stdio: ["ignore", "ignore", "ignore"],
    detached: true,
  });
  orphan.unref();
  await eventually(
    async () => taggedProcesses(installationTag(dataDir)).some((p) => p.pid === orphan.pid),
    5000,
    "the orphan",
  );

  platform = await runPlatform(env);
  ({ orchestration, filtration } = platform.ports as { orchestration: number; filtration: number });
  const after = await status();
  expect(after.status).toBe("RUNNING");
  expect(firstReplica(after).provider_instance_id).toBe(firstReplica(before).provider_instance_id);
  expect(firstReplica(after).restarts).toBe(0);
  await eventually(async () => !isAlive(orphan.pid), 15_000, "the orphan to be stopped");
  // Adopted, not restarted: the same worker still answers.
  const client = new OpenAI({ baseURL: firstReplica(after).endpoint, apiKey: "unused" });
  const answer = await client.chat.completions.create({
    model: "survivor",
    messages: [{ role: "user", content: "Hi" }],
    max_tokens: 4,
  });
  expect(answer.choices).toHaveLength(1);
  expect(firstReplica(await status()).restarts).toBe(0);
  const restarted = await eventually(
    async () => {
      const d = await statusOf(secondId);
      return firstReplica(d).state === "READY" && firstReplica(d).restarts === 1 ? d : undefined;
    },
    30_000,
    "the dead worker to be restarted",
  );
  const newSecondPid = pidOf(firstReplica(restarted).provider_instance_id ?? "") as number;
  expect(newSecondPid).not.toBe(secondPid);
  expect(
    taggedProcesses(installationTag(dataDir))
      .map((p) => p.pid)
      .sort(),
  ).toEqual([pid, newSecondPid].sort());

  for (const which of [id, secondId]) {
    await api<typeof terminate>(orchestration, token, "POST", "/deployment/terminate", {
      deployment_id: which,
    });
    await eventually(async () => (await statusOf(which)).status === "STOPPED", 20_000, "STOPPED");
  }
  expect(isAlive(pid)).toBe(false);
  expect(isAlive(newSecondPid)).toBe(false);
  expect(taggedProcesses(installationTag(dataDir))).toEqual([]);
}, 150_000);
