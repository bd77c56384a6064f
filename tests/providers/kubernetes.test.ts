// The kubernetes provider through @kubernetes/client-node against a fake API server (Deployments,
// Services, pods Pending then Running, pod logs, nodes, the service proxy behind a `kubectl proxy`
// stand-in) whose replicas are a real llama.cpp worker: a Deployment and a Service per replica with
// GPU limits and the allowed GPU products, a chat completion through the inference gateway,
// scaling, logs, nodes as resources, a restart adopting what runs (an orphan deleted), terminate
// leaving nothing, an image pull failure and unsatisfiable allowed_gpu_types turning FAILED.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKubernetesProvider } from "../../adapters/providers/kubernetes/index.ts";
import { providerAccounts } from "../../services/provider-configs/access.ts";
import { type FakeKubernetes, startFakeKubernetes } from "../fakes/kubernetes/server.ts";
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
let fake: FakeKubernetes;
let poolId: string;

beforeAll(async () => {
  p = await startProviderTest();
  fake = startFakeKubernetes({ workerUrl: p.worker.url });
  freshProviders(p.o, "kubernetes", (accounts) =>
    createKubernetesProvider({ engines: testEngines, accounts }),
  );
  await configureProvider(
    p,
    "kubernetes",
    { endpoint_mode: "service-proxy", proxy_url: fake.proxyUrl },
    { kubeconfig: fake.kubeconfig() },
  );
  poolId = (await createPool(p.o, { provider: "kubernetes", allowed_gpu_types: ["L4", "A100"] })).pool_id;
  await poolActive(p, poolId);
}, 90_000);
afterAll(async () => {
  await stopProviderTest(p);
  fake.stop();
}, 30_000);

describe("kubernetes", () => {
  let id: string;
  test("deploy -> RUNNING: a Deployment and a Service per replica, GPU limits, the allowed GPU products, the engine's container; the endpoint through the service proxy", async () => {
    const started = Date.now();
    id = await deploy(p, { model_name: "tiny-chat", pool_id: poolId, gpu_per_replica: 1 });
    const running = await until(p, id, "RUNNING");
    console.log(`kubernetes deploy -> RUNNING: ${((Date.now() - started) / 1000).toFixed(2)} s`);
    const replica = running.observed_replicas[0];
    const name = replica.provider_instance_id;
    expect(replica.endpoint).toBe(`${fake.proxyUrl}/api/v1/namespaces/llm/services/${name}:8080/proxy/v1`);
    const d = fake.deployments.get(name);
    expect(d.metadata.labels["llmp.io/deployment"]).toBe(id);
    expect(d.metadata.labels["llmp.io/installation"]).toBe(providerAccounts(p.o.t.app).installation);
    expect(d.spec.replicas).toBe(1);
    const pod = d.spec.template.spec;
    expect(
      pod.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms,
    ).toEqual([
      {
        matchExpressions: [
          { key: "nvidia.com/gpu.product", operator: "In", values: ["NVIDIA-A100-SXM4-80GB", "NVIDIA-L4"] },
        ],
      },
    ]);
    const container = pod.containers[0];
    expect(container.image).toBe("ghcr.io/ggml-org/llama.cpp:server-cuda");
    expect(container.command).toEqual(["/app/llama-server"]);
    expect(container.args).toContain("--alias");
    expect(container.resources.limits).toEqual({ "nvidia.com/gpu": "1" });
    expect(container.readinessProbe.httpGet).toEqual({ path: "/health", port: 8080 });
    expect(container.env).toContainEqual({ name: "PROVIDER_INSTANCE_ID", value: name });
    expect(fake.services.get(name)?.spec.ports[0].port).toBe(8080);
    expect(fake.services.get(name)?.spec.selector).toEqual(d.metadata.labels);
    expect(name).toBe(
      `llmp-${d.metadata.labels["llmp.io/installation"]}-${d.metadata.labels["llmp.io/replica"]}`,
    );
  }, 60_000);

  test("a chat completion through the inference gateway reaches the real engine", async () => {
    const answer = await chat(p);
    expect(answer.object).toBe("chat.completion");
    expect(answer.usage?.completion_tokens).toBeGreaterThan(0);
  }, 30_000);

  test("the pod's log is in the deployment's logs", async () => {
    await eventually(
      async () => {
        const res = await call(p.o.orchestration, "GET", `/deployment/logs/${id}`, { token: p.o.token });
        return res.body.lines.some((l: Any) => String(l.line).includes("server is listening"));
      },
      10_000,
      "the pod's log lines",
    );
  }, 30_000);

  test("provider resources: the nodes' allocatable nvidia.com/gpu by product", async () => {
    const res = await call(p.o.orchestration, "GET", "/deployment/provider/resources?provider=kubernetes", {
      token: p.o.token,
    });
    expect(res.status).toBe(200);
    expect(res.body.gpus).toEqual([
      { name: "NVIDIA-L4", memory_mib: null, count: 2, price_per_hour: null },
      { name: "NVIDIA-A100-SXM4-80GB", memory_mib: null, count: 1, price_per_hour: null },
    ]);
    expect(res.body.cpu.cores).toBe(24);
  }, 30_000);

  test("scaling to 2 creates a second Deployment, back to 1 deletes it", async () => {
    await scale(p, id, 2);
    await eventually(
      async () => {
        const d = await status(p, id);
        return d.observed_replicas.length === 2 && d.observed_replicas.every((r: Any) => r.state === "READY");
      },
      20_000,
      "two READY replicas",
    );
    expect(fake.deployments.size).toBe(2);
    expect(fake.services.size).toBe(2);
    await scale(p, id, 1);
    await eventually(async () => fake.deployments.size === 1 && fake.services.size === 1, 20_000, "one left");
    expect((await chat(p)).object).toBe("chat.completion");
  }, 60_000);

  test("a restart of the orchestration adopts the running Deployment and deletes an orphan", async () => {
    const before = await status(p, id);
    await p.reconciler.stop();
    const ours = providerAccounts(p.o.t.app).installation;
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
    freshProviders(p.o, "kubernetes", (accounts) =>
      createKubernetesProvider({ engines: testEngines, accounts }),
    );
    p.reconciler = startTestReconciler(p);
    await eventually(async () => !fake.deployments.has(orphan), 20_000, "the orphan deleted");
    expect(fake.deployments.has(theirs)).toBe(true);
    fake.deployments.delete(theirs);
    const after = await status(p, id);
    expect(after.status).toBe("RUNNING");
    expect(after.observed_replicas[0].provider_instance_id).toBe(
      before.observed_replicas[0].provider_instance_id,
    );
    expect((await chat(p)).object).toBe("chat.completion");
  }, 60_000);

  test("terminate deletes the Deployment and the Service: nothing is left in the cluster", async () => {
    await terminate(p, id);
    expect([...fake.deployments.keys()]).toEqual([]);
    expect([...fake.services.keys()]).toEqual([]);
    expect([...fake.pods.keys()]).toEqual([]);
  }, 60_000);

  test("an image the kubelet cannot pull turns the deployment FAILED with its reason (a vllm deployment)", async () => {
    fake.unpullable.add("vllm/vllm-openai:latest");
    const bad = await deploy(p, {
      model_name: "tiny-vllm",
      pool_id: poolId,
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
    const h100 = await createPool(p.o, { provider: "kubernetes", allowed_gpu_types: ["H100"] });
    await poolActive(p, h100.pool_id);
    const calls = fake.calls.length;
    const bad = await deploy(p, { model_name: "tiny-h100", pool_id: h100.pool_id, gpu_per_replica: 1 });
    const failed = await until(p, bad, "FAILED");
    expect(failed.failure_reason).toContain("allowed_gpu_types (H100)");
    expect(fake.calls.slice(calls).some((c) => c.startsWith("POST"))).toBe(false);
    expect(fake.deployments.size).toBe(0);
  }, 60_000);

  test("with settings.gpu_prices_per_hour: the cost in status and resources, and max_cost_per_hour enforced", async () => {
    await configureProvider(
      p,
      "kubernetes",
      {
        endpoint_mode: "service-proxy",
        proxy_url: fake.proxyUrl,
        gpu_prices_per_hour: { "NVIDIA-L4": 0.8, "NVIDIA-A100-SXM4-80GB": 3.5 },
      },
      { kubeconfig: fake.kubeconfig() },
    );
    const resources = await call(
      p.o.orchestration,
      "GET",
      "/deployment/provider/resources?provider=kubernetes",
      {
        token: p.o.token,
      },
    );
    expect(resources.body.gpus.map((g: Any) => [g.name, g.price_per_hour])).toEqual([
      ["NVIDIA-L4", 0.8],
      ["NVIDIA-A100-SXM4-80GB", 3.5],
    ]);

    const cheap = await createPool(p.o, {
      provider: "kubernetes",
      allowed_gpu_types: ["L4"],
      max_cost_per_hour: 1,
    });
    await poolActive(p, cheap.pool_id);
    const ok = await deploy(p, { model_name: "tiny-priced", pool_id: cheap.pool_id, gpu_per_replica: 1 });
    const running = await until(p, ok, "RUNNING");
    expect(running.estimated_cost_per_hour).toBe(0.8);
    await terminate(p, ok);

    // L4 or A100: the scheduler may pick the A100, so the ceiling is checked against it.
    const mixed = await createPool(p.o, {
      provider: "kubernetes",
      allowed_gpu_types: ["L4", "A100"],
      max_cost_per_hour: 2,
    });
    await poolActive(p, mixed.pool_id);
    const calls = fake.calls.length;
    const dear = await deploy(p, { model_name: "tiny-dear", pool_id: mixed.pool_id, gpu_per_replica: 1 });
    const refused = await until(p, dear, "FAILED");
    expect(refused.failure_reason).toContain("over the pool's max_cost_per_hour of $2");
    expect(refused.failure_reason).toContain("$3.5/h");
    expect(fake.calls.slice(calls).some((c) => c.startsWith("POST"))).toBe(false);
  }, 90_000);

  test("max_cost_per_hour without a price for a GPU the replica may land on: FAILED saying so", async () => {
    await configureProvider(
      p,
      "kubernetes",
      { endpoint_mode: "service-proxy", proxy_url: fake.proxyUrl, gpu_prices_per_hour: { "NVIDIA-L4": 0.8 } },
      { kubeconfig: fake.kubeconfig() },
    );
    const pool = await createPool(p.o, {
      provider: "kubernetes",
      allowed_gpu_types: ["A100"],
      max_cost_per_hour: 5,
    });
    await poolActive(p, pool.pool_id);
    const id = await deploy(p, { model_name: "tiny-unpriced", pool_id: pool.pool_id, gpu_per_replica: 1 });
    const failed = await until(p, id, "FAILED");
    expect(failed.failure_reason).toContain("gpu_prices_per_hour has none for NVIDIA-A100-SXM4-80GB");
  }, 60_000);
});
