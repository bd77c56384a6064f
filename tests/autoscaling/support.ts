// What the autoscaling tests share: a platform whose orchestrator and two inference gateways (as two
// gateway processes would) meet through one shared load store: Redis when REDIS_URL is set (each with
// its own connection), else the database (PGlite or TEST_DATABASE_URL); helpers to call and wait.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Engine } from "#adapters/engines/engine.ts";
import { createLocalProvider } from "#adapters/providers/local/index.ts";
import type { ComputeProvider } from "#adapters/providers/provider.ts";
import { RedisStore } from "#adapters/redis/client.ts";
import { redisLoadStore } from "#adapters/redis/load-reports.ts";
import type { LoadStore } from "#core/ports/load-store.ts";
import type { POST as createKeyRoute } from "#routes/filtration/management/api-keys/index.ts";
import { buildHttpGateway } from "#routes/gateways.ts";
import type { POST as createPoolRoute } from "#routes/orchestration/deployment/createpool.ts";
import type { POST as deployRoute } from "#routes/orchestration/deployment/deploy.ts";
import type { GET as listPools } from "#routes/orchestration/deployment/listPools/[owner_id].ts";
import type { GET as deploymentStatus } from "#routes/orchestration/deployment/status/[deployment_id].ts";
import { withInference } from "#server/compose.ts";
import { listen } from "#server/http/listen.ts";
import type { Listener } from "#server/start/platform.ts";
import type { InferenceRuntime } from "#services/inference/runtime.ts";
import { databaseLoadStore } from "#services/orchestration/autoscaling/database-load.ts";
import { type Reconciler, startReconciler } from "#services/orchestration/reconciler.ts";
import { eventually, type OrchestrationTest, startOrchestrationTest } from "../orchestration/support.ts";
import { type BodyOf, call } from "../support/app.ts";
import { inProcessInference } from "../support/inference.ts";

export const redisUrl = process.env.REDIS_URL || undefined;

export interface Gateway {
  runtime: InferenceRuntime;
  listener: Listener;
  url: string;
}

export interface AutoscalingTest {
  o: OrchestrationTest;
  gateways: [Gateway, Gateway];
  reconciler: Reconciler;
  apiKey: string;
  store: LoadStore;
  close(): Promise<void>;
}

/** The local provider with the slow stand-in worker; `pricePerHour` makes its ready replicas cost that. */
export function slowWorkerProvider(dataDir: string, pricePerHour?: number): ComputeProvider {
  const engine: Engine = {
    id: "llama.cpp",
    localCommand: (opts) => ({
      cmd: [process.execPath, join(import.meta.dir, "fixtures", "slow-worker.ts")],
      env: { MODEL_PATH: opts.modelPath, MODEL_NAME: opts.modelName, PORT: String(opts.port), ...opts.env },
    }),
  };
  const local = createLocalProvider({ dataDir, engines: { "llama.cpp": engine } });
  if (pricePerHour === undefined) return local;
  return {
    ...local,
    async inspectReplica(handle, spec) {
      const seen = await local.inspectReplica(handle, spec);
      return seen.phase === "ready" ? { ...seen, costPerHour: pricePerHour } : seen;
    },
  };
}

export async function startAutoscalingTest(
  options: { pricePerHour?: number } = {},
): Promise<AutoscalingTest> {
  const o = await startOrchestrationTest();
  const runtime = o.t.app.orchestration;
  runtime.providers = {
    ...runtime.providers,
    local: { ...slowWorkerProvider(o.t.config.dataDir, options.pricePerHour), id: "local" },
  };
  const redisClients: RedisStore[] = [];
  const storeFor = async (): Promise<LoadStore> => {
    if (!redisUrl) return databaseLoadStore(o.t.app.db);
    const client = new RedisStore(redisUrl);
    await client.connect();
    redisClients.push(client);
    return redisLoadStore(client);
  };
  const store = await storeFor();
  const reconciler = startReconciler(o.t.app, {
    intervalMs: 100,
    logPumpMs: 100,
    restartBaseMs: 200,
    orphanScanMs: 1000,
    drainMs: 300,
    load: store,
  });
  const gateway = async (): Promise<Gateway> => {
    const inference = inProcessInference(o.t.app, {
      load: await storeFor(),
      loadReportIntervalMs: 200,
    });
    const app = withInference(o.t.app, inference);
    const listener = listen(app, "inference", 0, await buildHttpGateway(app, "inference"));
    return { runtime: inference, listener, url: `http://127.0.0.1:${listener.port}` };
  };
  const gateways: [Gateway, Gateway] = [await gateway(), await gateway()];
  const key = await call<typeof createKeyRoute>(o.filtration, "POST", "/management/api-keys", {
    token: o.token,
    body: { name: "as" },
  });
  if (key.status !== 201) throw new Error(`api key: ${key.status}`);
  return {
    o,
    gateways,
    reconciler,
    apiKey: key.body.key,
    store,
    async close() {
      await reconciler.stop({ stopWorkers: true });
      for (const g of gateways) {
        await g.listener.stop(1000);
        await g.runtime.close();
      }
      for (const client of redisClients) client.close();
      await o.t.close();
    },
  };
}

/** A model file for the stand-in worker: it takes `startMs` to start. */
export function modelFile(a: AutoscalingTest, name: string, startMs: number): string {
  const path = join(a.o.t.config.dataDir, `${name}.gguf`);
  writeFileSync(path, `GGUF start=${startMs}`);
  return path;
}

export async function localDeployment(
  a: AutoscalingTest,
  name: string,
  options: { startMs?: number; poolBody?: Record<string, unknown>; policy: Record<string, unknown> },
): Promise<string> {
  const pool = await call<typeof createPoolRoute>(a.o.orchestration, "POST", "/deployment/createpool", {
    token: a.o.token,
    body: { pool_name: `pool-${name}`, provider: "local", ...options.poolBody },
  });
  if (pool.status !== 201) throw new Error(`createpool: ${pool.status} ${JSON.stringify(pool.body)}`);
  await eventually(
    async () =>
      (
        await call<typeof listPools>(a.o.orchestration, "GET", `/deployment/listPools/${a.o.orgId}`, {
          token: a.o.token,
        })
      ).body.pools.find((p) => p.pool_id === pool.body.pool_id)?.state === "Active",
    10_000,
    "pool Active",
  );
  const res = await call<typeof deployRoute>(a.o.orchestration, "POST", "/deployment/deploy", {
    token: a.o.token,
    body: {
      pool_id: pool.body.pool_id,
      model_name: name,
      engine: "llama.cpp",
      image: "llama.cpp",
      inference_model: modelFile(a, name, options.startMs ?? 0),
    },
  });
  if (res.status !== 201) throw new Error(`deploy: ${res.status} ${JSON.stringify(res.body)}`);
  const id = res.body.deployment_id;
  await setAutoscaling(a.o, id, options.policy);
  return id;
}

export async function setAutoscaling(o: OrchestrationTest, id: string, config: Record<string, unknown>) {
  const res = await call(o.filtration, "POST", "/management/config/autoscaling", {
    token: o.token,
    body: { deployment_id: id, config },
  });
  if (res.status !== 200) throw new Error(`policy: ${res.status} ${JSON.stringify(res.body)}`);
}

/** GET /deployment/status/:id, typed by the route's response schema. */
export type DeploymentView = BodyOf<typeof deploymentStatus>;

export const status = async (o: OrchestrationTest, id: string): Promise<DeploymentView> =>
  (
    await call<typeof deploymentStatus>(o.orchestration, "GET", `/deployment/status/${id}`, {
      token: o.token,
    })
  ).body;

export const until = (
  o: OrchestrationTest,
  id: string,
  check: (d: DeploymentView) => boolean,
  what: string,
  ms = 30_000,
) =>
  eventually(
    async () => {
      const d = await status(o, id);
      if (d.status === "FAILED") throw new Error(`FAILED: ${d.failure_reason}`);
      return check(d) ? d : undefined;
    },
    ms,
    what,
  );

/** Scaled to zero and nothing of it running any more. */
export const atZero = (o: OrchestrationTest, id: string) =>
  until(
    o,
    id,
    (d) => d.status === "RUNNING" && d.scaled_to_zero && d.observed_replicas.length === 0,
    "scaled to zero",
  );

export const scaleDecisions = (d: DeploymentView): { from: number; to: number; reason: string | null }[] =>
  d.transitions.flatMap((t) => (t.replicas ? [{ ...t.replicas, reason: t.reason }] : []));

export interface Answer {
  status: number;
  retryAfter: string | null;
  body: string;
}

/** One chat completion through a gateway; a stream is read to its end. */
export async function ask(
  a: AutoscalingTest,
  gateway: Gateway,
  model: string,
  options: { stream?: boolean; sleepMs?: number } = {},
): Promise<Answer> {
  const res = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${a.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({
      model,
      messages: [{ role: "user", content: `sleep ${options.sleepMs ?? 0}` }],
      stream: options.stream === true,
    }),
  });
  return { status: res.status, retryAfter: res.headers.get("retry-after"), body: await res.text() };
}
