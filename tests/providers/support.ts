// What every provider test shares: a platform with its orchestration and inference gateways
// listening, a reconciler, one real llama.cpp worker of the tiny model (the fakes point their
// running replicas at it), and helpers to deploy, wait and call through the gateway.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Static } from "@sinclair/typebox";
import OpenAI from "openai";
import { createProviders } from "#adapters/providers/index.ts";
import type { ComputeProvider } from "#adapters/providers/provider.ts";
import type { ProviderId } from "#core/domain.ts";
import type { POST as createApiKey } from "#routes/filtration/management/api-keys/index.ts";
import { buildHttpGateway } from "#routes/gateways.ts";
import type { Deployment } from "#routes/orchestration/_schemas/deployment.ts";
import type { POST as deployRoute } from "#routes/orchestration/deployment/deploy.ts";
import type { GET as listPools } from "#routes/orchestration/deployment/listPools/[owner_id].ts";
import type { GET as deploymentStatus } from "#routes/orchestration/deployment/status/[deployment_id].ts";
import { withInference } from "#server/compose.ts";
import { listen } from "#server/http/listen.ts";
import type { Listener } from "#server/start/platform.ts";
import { type Reconciler, startReconciler } from "#services/orchestration/reconciler.ts";
import { providerAccounts } from "#services/provider-configs/access.ts";
import { startTinyWorker, type TinyWorker } from "../fakes/support/tiny-worker.ts";
import {
  createPool,
  eventually,
  type OrchestrationTest,
  startOrchestrationTest,
} from "../orchestration/support.ts";
import { type BodyOf, call } from "../support/app.ts";
import { inProcessInference } from "../support/inference.ts";

/** A deployment as GET /deployment/status answers it. */
export type DeploymentView = Static<typeof Deployment>;
/** One of its observed replicas. */
export type ReplicaView = DeploymentView["observed_replicas"][number];
/** A pool as GET /deployment/listPools lists it. */
export type PoolView = BodyOf<typeof listPools>["pools"][number];

/** A replica's id at the provider; the tests read it of replicas the provider placed. */
export function providerInstanceIdOf(replica: ReplicaView): string {
  if (replica.provider_instance_id === null)
    throw new Error(`replica ${replica.index} has no provider instance`);
  return replica.provider_instance_id;
}

/** A replica's endpoint; the tests read it of READY replicas, which have one. */
export function endpointOf(replica: ReplicaView): string {
  if (replica.endpoint === null) throw new Error(`replica ${replica.index} has no endpoint`);
  return replica.endpoint;
}

export const modelName = "tiny-chat";

export interface ProviderTest {
  /** The tiny worker's folder, removed by stopProviderTest. */
  workerDir: string;
  o: OrchestrationTest;
  worker: TinyWorker;
  orchestration: Listener;
  inference: Listener;
  reconciler: Reconciler;
  /** Where the replicas' workers send heartbeats (given to their containers). */
  heartbeatUrl: string;
  apiKey: string;
}

export async function startProviderTest(): Promise<ProviderTest> {
  // Short heartbeat intervals, so a silent worker turns UNHEALTHY within a second. The fake providers
  // listen on this machine, over http: the operator's allowance for provider URLs lets them be reached.
  const o = await startOrchestrationTest({
    HEARTBEAT_INTERVAL_MS: "300",
    PROVIDER_URL_ALLOWED_HOSTS: "127.0.0.1",
    PROVIDER_URL_ALLOW_HTTP: "true",
  });
  o.t.app = withInference(o.t.app, inProcessInference(o.t.app));
  const workerDir = mkdtempSync(join(tmpdir(), "llmp-worker-"));
  const worker = await startTinyWorker(workerDir, modelName);
  const orchestration = listen(o.t.app, "orchestration", 0, await buildHttpGateway(o.t.app, "orchestration"));
  const inference = listen(o.t.app, "inference", 0, await buildHttpGateway(o.t.app, "inference"));
  const heartbeatUrl = `http://127.0.0.1:${orchestration.port}/inventory/heartbeat`;
  const reconciler = startTestReconciler({ o, heartbeatUrl });
  const key = await call<typeof createApiKey>(o.filtration, "POST", "/management/api-keys", {
    token: o.token,
    body: { name: "p" },
  });
  if (key.status !== 201) throw new Error(`api key: ${key.status}`);
  return { o, worker, workerDir, orchestration, inference, reconciler, heartbeatUrl, apiKey: key.body.key };
}

export const startTestReconciler = (p: { o: OrchestrationTest; heartbeatUrl: string }) =>
  startReconciler(p.o.t.app, {
    intervalMs: 200,
    logPumpMs: 100,
    orphanScanMs: 300,
    restartBaseMs: 200,
    heartbeatUrl: p.heartbeatUrl,
  });

/**
 * A fresh set of providers, as a new orchestration process has: nothing remembered in memory, so
 * what runs is found again through the database and the provider's own API.
 */
export function freshProviders(
  o: OrchestrationTest,
  provider: ProviderId,
  make: (accounts: ReturnType<typeof providerAccounts>) => ComputeProvider,
) {
  const runtime = o.t.app.orchestration;
  const accounts = providerAccounts(o.t.app);
  runtime.providers = {
    ...createProviders({ dataDir: o.t.config.dataDir, accounts }),
    [provider]: { ...make(accounts), id: provider },
  };
}

export async function stopProviderTest(p: ProviderTest) {
  await p.reconciler.stop();
  await p.o.t.app.inference?.close();
  await p.inference.stop(1000);
  await p.orchestration.stop(1000);
  await p.worker.stop();
  await p.o.t.close();
  rmSync(p.workerDir, { recursive: true, force: true });
}

export async function configureProvider(
  p: ProviderTest,
  provider: ProviderId,
  settings: Record<string, unknown>,
  credentials: Record<string, string>,
) {
  const res = await call(p.o.filtration, "POST", "/management/config/providers", {
    token: p.o.token,
    body: { provider, settings, credentials },
  });
  if (res.status !== 200) throw new Error(`provider config: ${res.status} ${JSON.stringify(res.body)}`);
}

export const status = async (p: ProviderTest, id: string) =>
  (
    await call<typeof deploymentStatus>(p.o.orchestration, "GET", `/deployment/status/${id}`, {
      token: p.o.token,
    })
  ).body;

export const until = (p: ProviderTest, id: string, state: string, timeoutMs = 30_000) =>
  eventually(
    async () => {
      const d = await status(p, id);
      if (state !== "FAILED" && d.status === "FAILED") throw new Error(`FAILED: ${d.failure_reason}`);
      return d.status === state ? d : undefined;
    },
    timeoutMs,
    `status ${state}`,
  );

export async function deploy(p: ProviderTest, body: Record<string, unknown>): Promise<string> {
  const res = await call<typeof deployRoute>(p.o.orchestration, "POST", "/deployment/deploy", {
    token: p.o.token,
    body: {
      engine: "llama.cpp",
      image: "llama.cpp",
      inference_model: "https://huggingface.co/example/tiny/resolve/main/tiny.gguf",
      ...body,
    },
  });
  if (res.status !== 201) throw new Error(`deploy: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.deployment_id;
}

export async function terminate(p: ProviderTest, id: string) {
  const res = await call(p.o.orchestration, "POST", "/deployment/terminate", {
    token: p.o.token,
    body: { deployment_id: id },
  });
  if (res.status !== 200) throw new Error(`terminate: ${res.status} ${JSON.stringify(res.body)}`);
  return untilExplained(p, id, "STOPPED");
}

/** `until`, failing with the deployment's status and logs (what went wrong on the way). */
export async function untilExplained(p: ProviderTest, id: string, state: string): Promise<DeploymentView> {
  try {
    return await until(p, id, state);
  } catch (error) {
    const d = await status(p, id);
    const logs = await call(p.o.orchestration, "GET", `/deployment/logs/${id}`, { token: p.o.token });
    throw new Error(`${String(error)}; status ${JSON.stringify(d)}; logs ${JSON.stringify(logs.body)}`);
  }
}

/** What the scale operation writes (the desired replica count); the reconciler does the rest. */
/** As a user scales: POST /deployment/scale (the reconciler is kicked by the service). */
export async function scale(p: ProviderTest, id: string, replicas: number) {
  const res = await call(p.o.orchestration, "POST", "/deployment/scale", {
    token: p.o.token,
    body: { deployment_id: id, replicas },
  });
  if (res.status !== 200) throw new Error(`scale: ${res.status} ${JSON.stringify(res.body)}`);
  p.reconciler.kick();
}

export async function chat(p: ProviderTest, model = modelName) {
  const client = new OpenAI({
    apiKey: p.apiKey,
    baseURL: `http://127.0.0.1:${p.inference.port}/v1`,
    maxRetries: 0,
  });
  return client.chat.completions.create({
    model,
    messages: [{ role: "user", content: "Hello" }],
    max_tokens: 8,
  });
}

/** Waits until the pool is Active in listPools. */
export const poolActive = (p: ProviderTest, poolId: string) =>
  eventually(
    async () => {
      const list = await call<typeof listPools>(
        p.o.orchestration,
        "GET",
        `/deployment/listPools/${p.o.orgId}`,
        {
          token: p.o.token,
        },
      );
      return list.body.pools.find((x) => x.pool_id === poolId)?.state === "Active";
    },
    10_000,
    "pool Active",
  );

/** A new pool (createPool's body), once it is Active: its id. */
export async function activePool(p: ProviderTest, body: Record<string, unknown>): Promise<string> {
  const pool = await createPool(p.o, body);
  await poolActive(p, pool.pool_id);
  return pool.pool_id;
}

/** A deployment the provider cannot place: its status once FAILED (failure_reason says why). */
export async function deployFailing(p: ProviderTest, body: Record<string, unknown>): Promise<DeploymentView> {
  return until(p, await deploy(p, body), "FAILED");
}
