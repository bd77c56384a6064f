// The kubernetes provider through @kubernetes/client-node against a fake API server (Deployments,
// Services, pods Pending then Running, pod logs, nodes, the service proxy behind a `kubectl proxy`
// stand-in) whose replicas are a real llama.cpp worker, through the shared remote-provider suite
// (conformance.ts): a Deployment and a Service per replica with GPU limits and the allowed GPU
// products, a chat completion through the inference gateway, scaling, logs, a restart adopting what
// runs (an orphan deleted), terminate leaving nothing; and here, nodes as resources, an image pull
// failure and unsatisfiable allowed_gpu_types turning FAILED, and prices from the settings.
import { expect, test } from "bun:test";
import { createKubernetesProvider } from "#adapters/providers/kubernetes/index.ts";
import type { GET as providerResources } from "#routes/orchestration/deployment/provider/resources.ts";
import { providerAccounts } from "#services/provider-configs/access.ts";
import { type FakeKubernetes, startFakeKubernetes } from "../fakes/kubernetes/server.ts";
import { testEngines } from "../fakes/support/engines.ts";
import { createPool, eventually } from "../orchestration/support.ts";
import { call } from "../support/app.ts";
import { type ConformanceRun, providerConformance } from "./conformance.ts";
import {
  activePool,
  configureProvider,
  deploy,
  deployFailing,
  providerInstanceIdOf,
  terminate,
  until,
} from "./support.ts";

/** The organization's cluster: the fake's kubeconfig, endpoints through its `kubectl proxy` stand-in. */
const configureCluster = (run: ConformanceRun<FakeKubernetes>, gpuPrices?: Record<string, number>) =>
  configureProvider(
    run.p,
    "kubernetes",
    {
      endpoint_mode: "service-proxy",
      proxy_url: run.fake.proxyUrl,
      ...(gpuPrices ? { gpu_prices_per_hour: gpuPrices } : {}),
    },
    { kubeconfig: run.fake.kubeconfig() },
  );

providerConformance<FakeKubernetes>({
  provider: "kubernetes",
  create: (accounts) => createKubernetesProvider({ engines: testEngines, accounts }),
  startFake: (p) => startFakeKubernetes({ workerUrl: p.worker.url }),
  async setUp(run) {
    await configureCluster(run);
    run.poolId = (
      await createPool(run.p.o, { provider: "kubernetes", allowed_gpu_types: ["L4", "A100"] })
    ).pool_id;
  },
  held: (fake) => ({ deployments: fake.deployments.size, services: fake.services.size }),
  deployed: {
    title:
      "deploy -> RUNNING: a Deployment and a Service per replica, GPU limits, the allowed GPU products, the engine's container; the endpoint through the service proxy",
    endpoint: ({ fake }, replica) =>
      `${fake.proxyUrl}/api/v1/namespaces/llm/services/${providerInstanceIdOf(replica)}:8080/proxy/v1`,
    check({ p, fake, id }, replica) {
      const name = providerInstanceIdOf(replica);
      const d = fake.deployments.get(name);
      const labels = d?.metadata?.labels;
      expect(labels?.["llmp.io/deployment"]).toBe(id);
      expect(labels?.["llmp.io/installation"]).toBe(providerAccounts(p.o.t.app).installation);
      expect(d?.spec?.replicas).toBe(1);
      const pod = d?.spec?.template?.spec;
      expect(
        pod?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms,
      ).toEqual([
        {
          matchExpressions: [
            { key: "nvidia.com/gpu.product", operator: "In", values: ["NVIDIA-A100-SXM4-80GB", "NVIDIA-L4"] },
          ],
        },
      ]);
      const container = pod?.containers[0];
      expect(container?.image).toBe("ghcr.io/ggml-org/llama.cpp:server-cuda");
      expect(container?.command).toEqual(["/app/llama-server"]);
      expect(container?.args).toContain("--alias");
      expect(container?.resources?.limits).toEqual({ "nvidia.com/gpu": "1" });
      expect(container?.readinessProbe?.httpGet).toEqual({ path: "/health", port: 8080 });
      expect(container?.env).toContainEqual({ name: "PROVIDER_INSTANCE_ID", value: name });
      expect(fake.services.get(name)?.spec?.ports?.[0]?.port).toBe(8080);
      expect(fake.services.get(name)?.spec?.selector).toEqual(labels);
      expect(name).toBe(`llmp-${labels?.["llmp.io/installation"]}-${labels?.["llmp.io/replica"]}`);
    },
  },
  logs: {
    title: "the pod's log is in the deployment's logs",
    line: "server is listening",
    waitingFor: "the pod's log lines",
  },
  scaling: { title: "scaling to 2 creates a second Deployment, back to 1 deletes it" },
  restart: {
    title: "a restart of the orchestration adopts the running Deployment and deletes an orphan",
    orphans: {
      async plant({ fake, id }, ours) {
        const orphanReplica = crypto.randomUUID();
        const orphan = `llmp-${ours}-${orphanReplica}`;
        const theirs = `llmp-ffffffff-${crypto.randomUUID()}`; // another installation in the same namespace
        for (const [name, installation, replica] of [
          [orphan, ours, orphanReplica],
          [theirs, "ffffffff", theirs.slice(-36)],
        ] as const) {
          fake.deployments.set(name, {
            metadata: {
              name,
              labels: {
                "llmp.io/installation": installation,
                "llmp.io/replica": replica,
                "llmp.io/deployment": id,
              },
            },
            spec: { replicas: 1 },
          });
        }
        return { ours: orphan, theirs };
      },
      has: (fake, name) => fake.deployments.has(name),
      remove: (fake, name) => fake.deployments.delete(name),
    },
  },
  terminate: {
    title: "terminate deletes the Deployment and the Service: nothing is left in the cluster",
    also({ fake }) {
      expect([...fake.pods.keys()]).toEqual([]);
    },
  },
  whileRunning(run) {
    test("provider resources: the nodes' allocatable nvidia.com/gpu by product", async () => {
      const { p } = run;
      const res = await call<typeof providerResources>(
        p.o.orchestration,
        "GET",
        "/deployment/provider/resources?provider=kubernetes",
        {
          token: p.o.token,
        },
      );
      expect(res.status).toBe(200);
      expect(res.body.gpus).toEqual([
        { name: "NVIDIA-L4", memory_mib: null, count: 2, price_per_hour: null },
        { name: "NVIDIA-A100-SXM4-80GB", memory_mib: null, count: 1, price_per_hour: null },
      ]);
      expect(res.body.cpu?.cores).toBe(24);
    }, 30_000);
  },
  afterTerminate(run) {
    test("an image the kubelet cannot pull turns the deployment FAILED with its reason (a vllm deployment)", async () => {
      const { p, fake } = run;
      fake.unpullable.add("vllm/vllm-openai:latest");
      const bad = await deploy(p, {
        model_name: "tiny-vllm",
        pool_id: run.poolId,
        gpu_per_replica: 1,
        engine: "vllm",
        image: "vllm",
        inference_model: "Qwen/Qwen2.5-0.5B-Instruct",
      });
      const failed = await until(p, bad, "FAILED");
      expect(failed.failure_reason).toContain("ErrImagePull");
      expect(failed.failure_reason).toContain("vllm/vllm-openai:latest");
      await eventually(
        async () => fake.deployments.size === 0,
        20_000,
        "the failed replica's Deployment deleted",
      );
    }, 60_000);

    test("allowed_gpu_types no node offers: FAILED naming them, nothing created", async () => {
      const { p, fake } = run;
      const h100 = await activePool(p, { provider: "kubernetes", allowed_gpu_types: ["H100"] });
      const calls = fake.calls.length;
      const failed = await deployFailing(p, { model_name: "tiny-h100", pool_id: h100, gpu_per_replica: 1 });
      expect(failed.failure_reason).toContain("allowed_gpu_types (H100)");
      expect(fake.calls.slice(calls).some((c) => c.startsWith("POST"))).toBe(false);
      expect(fake.deployments.size).toBe(0);
    }, 60_000);

    test("with settings.gpu_prices_per_hour: the cost in status and resources, and max_cost_per_hour enforced", async () => {
      const { p, fake } = run;
      await configureCluster(run, { "NVIDIA-L4": 0.8, "NVIDIA-A100-SXM4-80GB": 3.5 });
      const resources = await call<typeof providerResources>(
        p.o.orchestration,
        "GET",
        "/deployment/provider/resources?provider=kubernetes",
        {
          token: p.o.token,
        },
      );
      expect(resources.body.gpus.map((g) => [g.name, g.price_per_hour])).toEqual([
        ["NVIDIA-L4", 0.8],
        ["NVIDIA-A100-SXM4-80GB", 3.5],
      ]);

      const cheap = await activePool(p, {
        provider: "kubernetes",
        allowed_gpu_types: ["L4"],
        max_cost_per_hour: 1,
      });
      const ok = await deploy(p, { model_name: "tiny-priced", pool_id: cheap, gpu_per_replica: 1 });
      const running = await until(p, ok, "RUNNING");
      expect(running.estimated_cost_per_hour).toBe(0.8);
      await terminate(p, ok);

      // L4 or A100: the scheduler may pick the A100, so the ceiling is checked against it.
      const mixed = await activePool(p, {
        provider: "kubernetes",
        allowed_gpu_types: ["L4", "A100"],
        max_cost_per_hour: 2,
      });
      const calls = fake.calls.length;
      const refused = await deployFailing(p, { model_name: "tiny-dear", pool_id: mixed, gpu_per_replica: 1 });
      expect(refused.failure_reason).toContain("over the pool's max_cost_per_hour of $2");
      expect(refused.failure_reason).toContain("$3.5/h");
      expect(fake.calls.slice(calls).some((c) => c.startsWith("POST"))).toBe(false);
    }, 90_000);

    test("max_cost_per_hour without a price for a GPU the replica may land on: FAILED saying so", async () => {
      const { p } = run;
      await configureCluster(run, { "NVIDIA-L4": 0.8 });
      const pool = await activePool(p, {
        provider: "kubernetes",
        allowed_gpu_types: ["A100"],
        max_cost_per_hour: 5,
      });
      const failed = await deployFailing(p, {
        model_name: "tiny-unpriced",
        pool_id: pool,
        gpu_per_replica: 1,
      });
      expect(failed.failure_reason).toContain("gpu_prices_per_hour has none for NVIDIA-A100-SXM4-80GB");
    }, 60_000);
  },
});
