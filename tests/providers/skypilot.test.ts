// The skypilot provider against a fake SkyPilot API server (request ids, then PENDING, RUNNING,
// SUCCEEDED or FAILED) whose clusters' endpoints are a real llama.cpp worker, through the shared
// remote-provider suite (conformance.ts): a cluster per replica with the allowed accelerators, spot or
// on-demand, its cost, a chat completion through the inference gateway, scaling, the launch output as
// logs, terminate taking every cluster down, a restart adopting the clusters (an orphan cluster taken
// down); and here, a quota failure and a placement over the ceiling turning the deployment FAILED.
import { expect, test } from "bun:test";
import { createSkyPilotProvider } from "#adapters/providers/skypilot/index.ts";
import { type FakeSkyPilot, startFakeSkyPilot } from "../fakes/skypilot/server.ts";
import { testEngines } from "../fakes/support/engines.ts";
import { createPool, eventually, firstReplica } from "../orchestration/support.ts";
import { providerConformance } from "./conformance.ts";
import {
  activePool,
  configureProvider,
  deploy,
  deployFailing,
  providerInstanceIdOf,
  terminate,
  until,
} from "./support.ts";

providerConformance<FakeSkyPilot>({
  provider: "skypilot",
  create: (accounts) => createSkyPilotProvider({ engines: testEngines, accounts }),
  startFake: (p) => startFakeSkyPilot({ workerHost: new URL(p.worker.url).host }),
  async setUp(run) {
    await configureProvider(run.p, "skypilot", { base_url: run.fake.baseUrl }, { token: run.fake.token });
    run.poolId = (
      await createPool(run.p.o, {
        provider: "skypilot",
        allowed_gpu_types: ["A100", "L4"],
        max_cost_per_hour: 1,
      })
    ).pool_id;
  },
  held: (fake) => ({ clusters: fake.clusters.size }),
  deployed: {
    title:
      "deploy -> RUNNING: a cluster per replica with any of the allowed accelerators, its endpoint and cost",
    check({ fake, id }, replica) {
      const cluster = fake.clusters.get(providerInstanceIdOf(replica));
      expect(cluster?.status).toBe("UP");
      expect(cluster?.task?.resources.any_of).toEqual([
        { accelerators: { A100: 1 } },
        { accelerators: { L4: 1 } },
      ]);
      expect(cluster?.task?.resources.use_spot).toBe(false);
      expect(cluster?.task?.resources.max_hourly_cost).toBe(1);
      expect(cluster?.task?.resources.ports).toEqual([8080]);
      expect(cluster?.task?.resources.image_id).toBe("docker:ghcr.io/ggml-org/llama.cpp:server-cuda");
      expect(cluster?.task?.resources.labels["llmp-deployment"]).toBe(id);
      expect(cluster?.task?.run).toMatch(
        /^\/app\/llama-server --model-url https:.* --n-gpu-layers 999 --jinja --host 0.0.0.0 --port 8080$/,
      );
      // Every operation went through a request id.
      expect([...fake.requests.values()].some((r) => r.name === "launch" && r.status === "SUCCEEDED")).toBe(
        true,
      );
    },
  },
  price: {
    title: "the replica's price is SkyPilot's cost per hour of the cluster (the cheaper L4)",
    spec: ({ fake }) => ({
      engine: "llama.cpp",
      modelSource: "x",
      deploymentName: "tiny-chat",
      gpuPerReplica: 1,
      configuration: {},
      placement: { maxCostPerHour: 1, allowedGpuTypes: ["A100", "L4"] },
      access: { credentials: { token: fake.token }, settings: { base_url: fake.baseUrl } },
    }),
    costPerHour: 0.71,
  },
  logs: {
    title: "the launch request's output is in the deployment's logs",
    line: "is UP on L4",
    waitingFor: "the launch output in the logs",
  },
  scaling: { title: "scaling to 2 launches a second cluster, back to 1 takes it down" },
  restart: {
    title: "a restart of the orchestration adopts the cluster and takes an orphan down",
    orphans: {
      async plant({ fake }, installation) {
        const ours = `llmp-${installation}-${crypto.randomUUID()}`;
        const theirs = `llmp-ffffffff-${crypto.randomUUID()}`; // another installation on the same server
        for (const name of [ours, theirs])
          fake.clusters.set(name, { name, status: "UP", task: null, launchedAt: Date.now(), hourly: 0.71 });
        return { ours, theirs };
      },
      has: (fake, name) => fake.clusters.has(name),
      remove: (fake, name) => fake.clusters.delete(name),
    },
  },
  terminate: { title: "terminate takes the cluster down: nothing is left at SkyPilot" },
  afterTerminate(run) {
    test("a launch failing for quota turns the deployment FAILED with SkyPilot's reason", async () => {
      const { p, fake } = run;
      fake.failNextLaunch = {
        type: "ResourcesUnavailableError",
        message: "Failed to acquire resources in all zones: quota exceeded for L4 GPUs",
      };
      const failed = await deployFailing(p, {
        model_name: "tiny-quota",
        pool_id: run.poolId,
        gpu_per_replica: 1,
      });
      expect(failed.failure_reason).toContain("ResourcesUnavailableError");
      expect(failed.failure_reason).toContain("quota exceeded");
      expect(fake.clusters.size).toBe(0);
    }, 60_000);

    test("over max_cost_per_hour: SkyPilot refuses it (max_hourly_cost), an older server's cluster is taken down; spot fits", async () => {
      const { p, fake } = run;
      const a100 = await activePool(p, {
        provider: "skypilot",
        allowed_gpu_types: ["A100"],
        max_cost_per_hour: 2,
      });
      const refusal = await deployFailing(p, {
        model_name: "tiny-refused",
        pool_id: a100,
        gpu_per_replica: 1,
      });
      expect(refusal.failure_reason).toContain("max_hourly_cost=2");
      expect(fake.clusters.size).toBe(0);

      fake.honorMaxHourlyCost = false;
      const failed = await deployFailing(p, { model_name: "tiny-dear", pool_id: a100, gpu_per_replica: 1 });
      expect(failed.failure_reason).toContain("$3.67/h, over the pool's max_cost_per_hour ($2/h)");
      await eventually(async () => fake.clusters.size === 0, 10_000, "the dear cluster down");

      const spot = await deploy(p, {
        model_name: "tiny-spot",
        pool_id: a100,
        gpu_per_replica: 1,
        configuration: { use_spot: true },
      });
      const running = await until(p, spot, "RUNNING");
      const cluster = fake.clusters.get(providerInstanceIdOf(firstReplica(running)));
      expect(cluster?.task?.resources.use_spot).toBe(true);
      expect(cluster?.hourly).toBe(1.101);
      await terminate(p, spot);
      expect(fake.clusters.size).toBe(0);
    }, 60_000);
  },
});
