// The nosana provider against a fake of Nosana's deployment manager API whose running jobs point at
// a real llama.cpp worker: the default provider once credentials are configured, market placement
// by allowed_gpu_types and max_cost_per_hour, deploy to RUNNING, a chat completion through the
// inference gateway, scaling, logs, terminate leaving nothing at Nosana, an image pull failure and
// an unaffordable pool turning the deployment FAILED, and a restart adopting what runs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createNosanaProvider } from "../../adapters/providers/nosana/index.ts";
import { noAccounts } from "../../adapters/providers/remote-accounts.ts";
import { orchestrationOf } from "../../services/orchestration/runtime.ts";
import { providerAccounts } from "../../services/provider-configs/access.ts";
import { type FakeNosana, startFakeNosana } from "../fakes/nosana/server.ts";
import { testEngines } from "../fakes/support/engines.ts";
import { createPool, eventually } from "../orchestration/support.ts";
import { call } from "../support/app.ts";
import {
  type Any,
  chat,
  configureProvider,
  deploy,
  freshProviders,
  type ProviderTest,
  poolActive,
  scale,
  startProviderTest,
  startTestReconciler,
  status,
  stopProviderTest,
  terminate,
  until,
} from "./support.ts";

let p: ProviderTest;
let fake: FakeNosana;
let poolId: string;
let nodeToken: string;

beforeAll(async () => {
  p = await startProviderTest();
  fake = startFakeNosana({ workerUrl: p.worker.url });
  freshProviders(p.o, "nosana", (accounts) => createNosanaProvider({ engines: testEngines, accounts }));
}, 90_000);
afterAll(async () => {
  await stopProviderTest(p);
  fake.stop();
}, 30_000);

const nosanaIds = () =>
  fake
    .held()
    .map((d) => d.id)
    .sort();

describe("nosana", () => {
  test("a pool without a provider is local until nosana credentials are configured, then nosana", async () => {
    const before = await createPool(p.o, {});
    expect(before.provider).toBe("local");
    await configureProvider(p, "nosana", { base_url: fake.baseUrl }, { api_key: fake.apiKey });
    const pool = await createPool(p.o, {
      allowed_gpu_types: ["RTX 3060", "RTX 4090"],
      max_cost_per_hour: 0.5,
    });
    expect(pool.provider).toBe("nosana");
    poolId = pool.pool_id;
    nodeToken = pool.node_token;
    await poolActive(p, poolId);
    const resources = await call(p.o.orchestration, "GET", "/deployment/provider/resources", {
      token: p.o.token,
    });
    expect(resources.body.provider).toBe("nosana");
    expect(resources.body.gpus.map((g: Any) => g.price_per_hour)).toEqual([0.048, 0.32, 1.1]);
  }, 30_000);

  test("a pool with a wrong key fails with Nosana's 401", async () => {
    await configureProvider(p, "nosana", { base_url: fake.baseUrl }, { api_key: "wrong" });
    const bad = await createPool(p.o, { provider: "nosana" });
    const failed = await eventually(
      async () => {
        const list = await call(p.o.orchestration, "GET", `/deployment/listPools/${p.o.orgId}`, {
          token: p.o.token,
        });
        const pool = list.body.pools.find((x: Any) => x.pool_id === bad.pool_id);
        return pool?.state === "Failed" ? pool : undefined;
      },
      10_000,
      "the pool Failed",
    );
    expect(failed.failure_reason).toContain("401");
    await configureProvider(p, "nosana", { base_url: fake.baseUrl }, { api_key: fake.apiKey });
  }, 30_000);

  let id: string;
  test("deploy -> RUNNING on the cheapest allowed market; the job definition runs the engine's container", async () => {
    const started = Date.now();
    id = await deploy(p, { model_name: "tiny-chat", pool_id: poolId, gpu_per_replica: 1 });
    const running = await until(p, id, "RUNNING");
    console.log(`nosana deploy -> RUNNING: ${((Date.now() - started) / 1000).toFixed(2)} s`);
    const replica = running.observed_replicas[0];
    expect(replica.endpoint).toBe(`${p.worker.url}/v1`);
    const [held] = fake.held();
    expect(fake.held()).toHaveLength(1);
    // The instance id is the name at Nosana, which the worker's heartbeats carry too.
    expect(held?.name).toBe(replica.provider_instance_id);
    expect(held?.market).toBe("mkt-3060");
    expect(held?.name).toContain(id);
    const op = held?.job_definition.ops[0]?.args;
    expect(op?.image).toBe("ghcr.io/ggml-org/llama.cpp:server-cuda");
    expect(op?.expose).toBe(8080);
    expect(op?.env.PROVIDER_INSTANCE_ID).toBe(held?.name);
    // The worker reports to the platform with the pool's node token.
    expect(op?.env.HEARTBEAT_URL).toBe(p.heartbeatUrl);
    expect(op?.env.NODE_TOKEN).toBe(nodeToken);
    expect(op?.env.POOL_PROVIDER).toBe("nosana");
  }, 60_000);

  test("the replica's price is the market's price per hour", async () => {
    const provider = orchestrationOf(p.o.t.app).providers.nosana;
    const d = await status(p, id);
    const r = d.observed_replicas[0];
    const seen = await provider?.inspectReplica(
      { replicaId: r.replica_id ?? "", providerInstanceId: r.provider_instance_id, endpoint: r.endpoint },
      {
        access: { credentials: { api_key: fake.apiKey }, settings: { base_url: fake.baseUrl } },
      } as Any,
    );
    expect(seen).toEqual({ phase: "ready", endpoint: `${p.worker.url}/v1`, costPerHour: 0.048 });
    // The deployment's estimated cost is the sum over its priced ready replicas.
    await eventually(async () => (await status(p, id)).estimated_cost_per_hour === 0.048, 5000, "cost 0.048");
    // And the pool's, in listPools over HTTP and gRPC alike (the same view).
    const list = await call(p.o.orchestration, "GET", `/deployment/listPools/${p.o.orgId}`, {
      token: p.o.token,
    });
    expect(list.body.pools.find((x: Any) => x.pool_id === poolId)?.estimated_cost_per_hour).toBe(0.048);
  });

  test("a chat completion through the inference gateway reaches the real engine", async () => {
    const answer = await chat(p);
    expect(answer.object).toBe("chat.completion");
    expect(answer.usage?.completion_tokens).toBeGreaterThan(0);
  }, 30_000);

  test("the worker's heartbeats (its instance id, the node token) make its node; silence turns the replica UNHEALTHY", async () => {
    const instance = (await status(p, id)).observed_replicas[0].provider_instance_id;
    const beat = (state?: string) =>
      fetch(p.heartbeatUrl, {
        method: "POST",
        headers: { authorization: `Bearer ${nodeToken}`, "content-type": "application/json" },
        body: JSON.stringify({ provider: "nosana", provider_instance_id: instance, gpu_allocated: 1, state }),
      });
    expect((await beat()).status).toBe(200);
    await eventually(
      async () => (await status(p, id)).observed_replicas[0].state === "UNHEALTHY",
      10_000,
      "the silent replica UNHEALTHY",
    );
    await beat();
    await eventually(
      async () => (await status(p, id)).observed_replicas[0].state === "READY",
      10_000,
      "READY again",
    );
    // The rest of the tests send no heartbeats: the node leaves, without a health verdict.
    expect((await beat("OFFLINE")).status).toBe(200);
  }, 30_000);

  test("Nosana's deployment events are in the deployment's logs", async () => {
    await eventually(
      async () => {
        const res = await call(p.o.orchestration, "GET", `/deployment/logs/${id}`, { token: p.o.token });
        return res.body.lines.some((l: Any) => String(l.line).includes("[nosana JOB_RUNNING]"));
      },
      10_000,
      "the job's events in the logs",
    );
  }, 30_000);

  test("scaling to 2 adds a Nosana deployment, back to 1 stops and deletes it", async () => {
    await scale(p, id, 2);
    await eventually(
      async () => {
        const d = await status(p, id);
        return d.observed_replicas.length === 2 && d.observed_replicas.every((r: Any) => r.state === "READY");
      },
      20_000,
      "two READY replicas",
    );
    expect(fake.held().filter((d) => d.status === "RUNNING")).toHaveLength(2);
    await eventually(async () => (await status(p, id)).estimated_cost_per_hour === 0.096, 5000, "cost 0.096");
    await scale(p, id, 1);
    await eventually(async () => fake.held().length === 1, 20_000, "one Nosana deployment left");
    await eventually(
      async () => (await status(p, id)).observed_replicas.length === 1,
      5000,
      "one replica left",
    );
    expect((await chat(p)).object).toBe("chat.completion");
  }, 60_000);

  test("a restart of the orchestration adopts the running replica and stops an orphan", async () => {
    const before = await status(p, id);
    await p.reconciler.stop();
    // Something of this installation's that no replica wants (e.g. launched just before a crash).
    const ours = providerAccounts(p.o.t.app).installation;
    const orphanName = `llmp-${ours}-${crypto.randomUUID()}-${crypto.randomUUID()}`;
    const created = await fetch(`${fake.baseUrl}/deployments/create`, {
      method: "POST",
      headers: { authorization: `Bearer ${fake.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        name: orphanName,
        market: "mkt-3060",
        replicas: 1,
        timeout: 60,
        strategy: "INFINITE",
        job_definition: { ops: [{ args: { image: "x", expose: 8080, env: {} } }] },
      }),
    }).then((r) => r.json() as Promise<Any>);
    await fetch(`${fake.baseUrl}/deployments/${created.id}/start`, {
      method: "POST",
      headers: { authorization: `Bearer ${fake.apiKey}` },
    });
    const foreign = await fetch(`${fake.baseUrl}/deployments/create`, {
      method: "POST",
      headers: { authorization: `Bearer ${fake.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        name: `llmp-ffffffff-${crypto.randomUUID()}-${crypto.randomUUID()}`,
        market: "mkt-3060",
        replicas: 1,
        timeout: 60,
        strategy: "INFINITE",
        job_definition: { ops: [{ args: { image: "x", expose: 8080, env: {} } }] },
      }),
    });
    expect(foreign.status).toBe(201);
    freshProviders(p.o, "nosana", (accounts) => createNosanaProvider({ engines: testEngines, accounts }));
    p.reconciler = startTestReconciler(p);
    await eventually(async () => !fake.deployments.has(created.id), 20_000, "the orphan deleted");
    // Another installation's replica on the same account stays.
    expect(fake.held().some((d) => d.name.startsWith("llmp-ffffffff-"))).toBe(true);
    for (const d of fake.held()) if (d.name.startsWith("llmp-ffffffff-")) fake.deployments.delete(d.id);
    const after = await status(p, id);
    expect(after.status).toBe("RUNNING");
    expect(after.observed_replicas[0].provider_instance_id).toBe(
      before.observed_replicas[0].provider_instance_id,
    );
    expect((await chat(p)).object).toBe("chat.completion");
  }, 60_000);

  test("terminate stops and deletes the Nosana deployment: nothing is left at Nosana", async () => {
    await terminate(p, id);
    expect(nosanaIds()).toEqual([]);
    expect((await status(p, id)).estimated_cost_per_hour).toBeNull();
  }, 60_000);

  test("an image pull failure at Nosana turns the deployment FAILED with its reason", async () => {
    fake.failNextStart = "Failed to pull image ghcr.io/ggml-org/llama.cpp:server: manifest unknown";
    const bad = await deploy(p, { model_name: "tiny-pull", pool_id: poolId });
    const failed = await until(p, bad, "FAILED");
    expect(failed.failure_reason).toContain("Failed to pull image");
    await eventually(async () => fake.held().length === 0, 10_000, "the failed deployment deleted");
  }, 60_000);

  test("no market under max_cost_per_hour: FAILED with a reason naming the ceiling", async () => {
    const cheap = await createPool(p.o, {
      provider: "nosana",
      allowed_gpu_types: ["A100"],
      max_cost_per_hour: 0.5,
    });
    await eventually(
      async () => {
        const list = await call(p.o.orchestration, "GET", `/deployment/listPools/${p.o.orgId}`, {
          token: p.o.token,
        });
        return list.body.pools.find((x: Any) => x.pool_id === cheap.pool_id)?.state === "Active";
      },
      10_000,
      "pool Active",
    );
    const bad = await deploy(p, { model_name: "tiny-dear", pool_id: cheap.pool_id });
    const failed = await until(p, bad, "FAILED");
    expect(failed.failure_reason).toContain("max_cost_per_hour");
    expect(failed.failure_reason).toContain("nvidia-a100");
    expect(fake.held()).toHaveLength(0);
  }, 60_000);

  test("deleting the pool (its deployments stopped or failed) removes it and leaves nothing at Nosana", async () => {
    const res = await call(p.o.orchestration, "POST", `/deployment/deletepool/${poolId}`, {
      token: p.o.token,
    });
    expect(res.status).toBe(200);
    await eventually(
      async () => {
        const list = await call(p.o.orchestration, "GET", `/deployment/listPools/${p.o.orgId}`, {
          token: p.o.token,
        });
        return !list.body.pools.some((x: Any) => x.pool_id === poolId);
      },
      10_000,
      "the pool gone",
    );
    expect(fake.held()).toHaveLength(0);
  }, 30_000);
});

test("starting a replica again (a crash between create and the database write) finds it by name, no second one", async () => {
  const provider = createNosanaProvider({ engines: testEngines, accounts: noAccounts });
  const spec = {
    replicaId: crypto.randomUUID(),
    deploymentId: crypto.randomUUID(),
    deploymentName: "tiny-twice",
    index: 0,
    engine: "llama.cpp",
    modelPath: undefined,
    modelSource: "https://example.com/tiny.gguf",
    configuration: {},
    gpuPerReplica: 1,
    placement: {
      poolId: "p",
      allowedGpuTypes: [],
      maxCostPerHour: null,
      isDedicated: false,
      schedulingPolicy: {},
    },
    heartbeat: undefined,
    access: { credentials: { api_key: fake.apiKey }, settings: { base_url: fake.baseUrl } },
  } as const;
  const first = await provider.startReplica({ ...spec, placement: { ...spec.placement } });
  const again = await provider.startReplica({ ...spec, placement: { ...spec.placement } });
  expect(again.providerInstanceId).toBe(first.providerInstanceId);
  expect(fake.held().filter((d) => d.name === first.providerInstanceId)).toHaveLength(1);
  await provider.stopReplica(first);
  expect(fake.held().filter((d) => d.name === first.providerInstanceId)).toHaveLength(0);
}, 30_000);
