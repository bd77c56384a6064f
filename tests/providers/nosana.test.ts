// The nosana provider against a fake of Nosana's deployment manager API whose running jobs point at
// a real llama.cpp worker, through the shared remote-provider suite (conformance.ts): deploy to
// RUNNING on a market, the market's price, a chat completion through the inference gateway, logs,
// scaling, a restart adopting what runs (an orphan stopped), terminate leaving nothing at Nosana;
// and here, the default provider once credentials are configured, market placement by
// allowed_gpu_types and max_cost_per_hour, the worker's heartbeats, an image pull failure and an
// unaffordable pool turning the deployment FAILED, and a start made twice.
import { expect, test } from "bun:test";
import type { NosanaDeployment } from "#adapters/providers/nosana/client.ts";
import { createNosanaProvider } from "#adapters/providers/nosana/index.ts";
import { noAccounts } from "#adapters/providers/remote-accounts.ts";
import type { GET as listPools } from "#routes/orchestration/deployment/listPools/[owner_id].ts";
import type { GET as providerResources } from "#routes/orchestration/deployment/provider/resources.ts";
import { type FakeNosana, startFakeNosana } from "../fakes/nosana/server.ts";
import { testEngines } from "../fakes/support/engines.ts";
import { createPool, eventually, firstReplica } from "../orchestration/support.ts";
import { call } from "../support/app.ts";
import { providerConformance } from "./conformance.ts";
import {
  activePool,
  configureProvider,
  deployFailing,
  poolActive,
  providerInstanceIdOf,
  status,
} from "./support.ts";

let nodeToken: string;

/** A deployment made at Nosana behind the platform's back (what a crash or another installation leaves). */
async function createAtNosana(fake: FakeNosana, name: string): Promise<Response> {
  return fetch(`${fake.baseUrl}/deployments/create`, {
    method: "POST",
    headers: { authorization: `Bearer ${fake.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({
      name,
      market: "mkt-3060",
      replicas: 1,
      timeout: 60,
      strategy: "INFINITE",
      job_definition: { ops: [{ args: { image: "x", expose: 8080, env: {} } }] },
    }),
  });
}

const run = providerConformance<FakeNosana>({
  provider: "nosana",
  create: (accounts) => createNosanaProvider({ engines: testEngines, accounts }),
  startFake: (p) => startFakeNosana({ workerUrl: p.worker.url }),
  held: (fake) => ({
    deployments: fake.held().length,
    running: fake.held().filter((d) => d.status === "RUNNING").length,
  }),
  beforeDeploy(run) {
    test("a pool without a provider is local until nosana credentials are configured, then nosana", async () => {
      const { p, fake } = run;
      const before = await createPool(p.o, {});
      expect(before.provider).toBe("local");
      await configureProvider(p, "nosana", { base_url: fake.baseUrl }, { api_key: fake.apiKey });
      const pool = await createPool(p.o, {
        allowed_gpu_types: ["RTX 3060", "RTX 4090"],
        max_cost_per_hour: 0.5,
      });
      expect(pool.provider).toBe("nosana");
      run.poolId = pool.pool_id;
      nodeToken = pool.node_token;
      await poolActive(p, run.poolId);
      const resources = await call<typeof providerResources>(
        p.o.orchestration,
        "GET",
        "/deployment/provider/resources",
        {
          token: p.o.token,
        },
      );
      expect(resources.body.provider).toBe("nosana");
      expect(resources.body.gpus.map((g) => g.price_per_hour)).toEqual([0.048, 0.32, 1.1]);
    }, 30_000);

    test("a pool with a wrong key fails with Nosana's 401", async () => {
      const { p, fake } = run;
      await configureProvider(p, "nosana", { base_url: fake.baseUrl }, { api_key: "wrong" });
      const bad = await createPool(p.o, { provider: "nosana" });
      const failed = await eventually(
        async () => {
          const list = await call<typeof listPools>(
            p.o.orchestration,
            "GET",
            `/deployment/listPools/${p.o.orgId}`,
            {
              token: p.o.token,
            },
          );
          const pool = list.body.pools.find((x) => x.pool_id === bad.pool_id);
          return pool?.state === "Failed" ? pool : undefined;
        },
        10_000,
        "the pool Failed",
      );
      expect(failed.failure_reason).toContain("401");
      await configureProvider(p, "nosana", { base_url: fake.baseUrl }, { api_key: fake.apiKey });
    }, 30_000);
  },
  deployed: {
    title: "deploy -> RUNNING on the cheapest allowed market; the job definition runs the engine's container",
    check({ p, fake, id }, replica) {
      const [held] = fake.held();
      // The instance id is the name at Nosana, which the worker's heartbeats carry too.
      expect(held?.name).toBe(providerInstanceIdOf(replica));
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
    },
  },
  price: {
    title: "the replica's price is the market's price per hour",
    spec: ({ fake }) => ({
      access: { credentials: { api_key: fake.apiKey }, settings: { base_url: fake.baseUrl } },
    }),
    costPerHour: 0.048,
    async also({ p, id, poolId }) {
      // The deployment's estimated cost is the sum over its priced ready replicas.
      await eventually(
        async () => (await status(p, id)).estimated_cost_per_hour === 0.048,
        5000,
        "cost 0.048",
      );
      // And the pool's, in listPools over HTTP and gRPC alike (the same view).
      const list = await call<typeof listPools>(
        p.o.orchestration,
        "GET",
        `/deployment/listPools/${p.o.orgId}`,
        {
          token: p.o.token,
        },
      );
      expect(list.body.pools.find((x) => x.pool_id === poolId)?.estimated_cost_per_hour).toBe(0.048);
    },
  },
  whileRunning(run) {
    test("the worker's heartbeats (its instance id, the node token) make its node; silence turns the replica UNHEALTHY", async () => {
      const { p, id } = run;
      const instance = firstReplica(await status(p, id)).provider_instance_id;
      const beat = (state?: string) =>
        fetch(p.heartbeatUrl, {
          method: "POST",
          headers: { authorization: `Bearer ${nodeToken}`, "content-type": "application/json" },
          body: JSON.stringify({
            provider: "nosana",
            provider_instance_id: instance,
            gpu_allocated: 1,
            state,
          }),
        });
      expect((await beat()).status).toBe(200);
      await eventually(
        async () => firstReplica(await status(p, id)).state === "UNHEALTHY",
        10_000,
        "the silent replica UNHEALTHY",
      );
      await beat();
      await eventually(
        async () => firstReplica(await status(p, id)).state === "READY",
        10_000,
        "READY again",
      );
      // The rest of the tests send no heartbeats: the node leaves, without a health verdict.
      expect((await beat("OFFLINE")).status).toBe(200);
    }, 30_000);
  },
  logs: {
    title: "Nosana's deployment events are in the deployment's logs",
    line: "[nosana JOB_RUNNING]",
    waitingFor: "the job's events in the logs",
  },
  scaling: {
    title: "scaling to 2 adds a Nosana deployment, back to 1 stops and deletes it",
    async atTwo({ p, id }) {
      await eventually(
        async () => (await status(p, id)).estimated_cost_per_hour === 0.096,
        5000,
        "cost 0.096",
      );
    },
  },
  restart: {
    title: "a restart of the orchestration adopts the running replica and stops an orphan",
    orphans: {
      async plant({ fake }, installation) {
        // Something of this installation's that no replica wants (e.g. launched just before a crash).
        const ours = `llmp-${installation}-${crypto.randomUUID()}-${crypto.randomUUID()}`;
        const created = (await (await createAtNosana(fake, ours)).json()) as NosanaDeployment;
        await fetch(`${fake.baseUrl}/deployments/${created.id}/start`, {
          method: "POST",
          headers: { authorization: `Bearer ${fake.apiKey}` },
        });
        const theirs = `llmp-ffffffff-${crypto.randomUUID()}-${crypto.randomUUID()}`;
        expect((await createAtNosana(fake, theirs)).status).toBe(201);
        return { ours, theirs };
      },
      has: (fake, name) => fake.held().some((d) => d.name === name),
      remove(fake, name) {
        for (const d of fake.held()) if (d.name === name) fake.deployments.delete(d.id);
      },
    },
  },
  terminate: {
    title: "terminate stops and deletes the Nosana deployment: nothing is left at Nosana",
    async also({ p, id }) {
      expect((await status(p, id)).estimated_cost_per_hour).toBeNull();
    },
  },
  afterTerminate(run) {
    test("an image pull failure at Nosana turns the deployment FAILED with its reason", async () => {
      const { p, fake } = run;
      fake.failNextStart = "Failed to pull image ghcr.io/ggml-org/llama.cpp:server: manifest unknown";
      const failed = await deployFailing(p, { model_name: "tiny-pull", pool_id: run.poolId });
      expect(failed.failure_reason).toContain("Failed to pull image");
      await eventually(async () => fake.held().length === 0, 10_000, "the failed deployment deleted");
    }, 60_000);

    test("no market under max_cost_per_hour: FAILED with a reason naming the ceiling", async () => {
      const { p, fake } = run;
      const cheap = await activePool(p, {
        provider: "nosana",
        allowed_gpu_types: ["A100"],
        max_cost_per_hour: 0.5,
      });
      const failed = await deployFailing(p, { model_name: "tiny-dear", pool_id: cheap });
      expect(failed.failure_reason).toContain("max_cost_per_hour");
      expect(failed.failure_reason).toContain("nvidia-a100");
      expect(fake.held()).toHaveLength(0);
    }, 60_000);

    test("deleting the pool (its deployments stopped or failed) removes it and leaves nothing at Nosana", async () => {
      const { p, fake } = run;
      const res = await call(p.o.orchestration, "POST", `/deployment/deletepool/${run.poolId}`, {
        token: p.o.token,
      });
      expect(res.status).toBe(200);
      await eventually(
        async () => {
          const list = await call<typeof listPools>(
            p.o.orchestration,
            "GET",
            `/deployment/listPools/${p.o.orgId}`,
            {
              token: p.o.token,
            },
          );
          return !list.body.pools.some((x) => x.pool_id === run.poolId);
        },
        10_000,
        "the pool gone",
      );
      expect(fake.held()).toHaveLength(0);
    }, 30_000);
  },
});

test("starting a replica again (a crash between create and the database write) finds it by name, no second one", async () => {
  const { fake } = run;
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
