// The orchestration gRPC services through @grpc/grpc-js, backed by the same services as HTTP.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as grpc from "@grpc/grpc-js";
import type { GrpcServer } from "#server/grpc/server.ts";
import { type Reconciler, startReconciler } from "#services/orchestration/reconciler.ts";
import {
  eventually,
  fakeOpenAIServer,
  type OrchestrationTest,
  startOrchestrationTest,
} from "../orchestration/support.ts";
import { call } from "../support/app.ts";
import { failureOf, startPlatformGrpc, TestClient } from "./support.ts";

const pools = "llmplatform.orchestration.v1.ComputePoolManagerService";
const registry = "llmplatform.orchestration.v1.ModelRegistryService";
const deployments = "llmplatform.orchestration.v1.ModelDeploymentService";

let o: OrchestrationTest;
let server: GrpcServer;
let client: TestClient;
let reconciler: Reconciler;
let upstream: ReturnType<typeof fakeOpenAIServer>;

beforeAll(async () => {
  o = await startOrchestrationTest();
  server = await startPlatformGrpc(o.t.app);
  client = new TestClient(server.port);
  reconciler = startReconciler(o.t.app, { intervalMs: 100 });
  upstream = fakeOpenAIServer();
}, 60_000);
afterAll(async () => {
  client.close();
  await reconciler.stop({ stopWorkers: true });
  await server.close(1000);
  upstream.stop();
  await o.t.close();
});

const auth = () => {
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${o.token}`);
  return metadata;
};

// The answers as @grpc/proto-loader decodes them (keepCase, enums as strings, defaults filled in):
// the fields of proto/llmplatform/orchestration/v1/*.proto these tests read.
interface PoolMessage {
  id: string;
  name: string;
  state: string;
  owner_id: string;
  node_count: number;
  ready_node_count: number;
  size?: number;
}
interface PoolAnswer {
  pool: PoolMessage;
  node_token: string;
}
interface NodeMessage {
  pool_id: string;
  provider_instance_id: string;
  vcpu_allocated: number;
  state: string;
}
interface ModelMessage {
  model_name: string;
  model_version: string;
  backend: string;
  artifact_uri: string;
}
interface DeploymentMessage {
  deployment_id: string;
  name: string;
  status: string;
  engine: string;
  replicas: number;
  org_id: string;
  observed_replicas: { index: number; state: string; endpoint: string }[];
  transitions: { to: string }[];
  input_price_per_million?: number;
  output_price_per_million?: number;
}
interface DeploymentAnswer {
  deployment: DeploymentMessage;
}

describe("ComputePoolManagerService", () => {
  test("RegisterPool returns the pool and its node token; ListPools and ListPoolInventory show it", async () => {
    const created = await client.unary<PoolAnswer>(
      pools,
      "RegisterPool",
      { pool_name: "grpc-pool", provider: "local", size: 4 },
      auth(),
    );
    expect(created.pool.name).toBe("grpc-pool");
    expect(created.pool.size).toBe(4);
    expect(created.pool.owner_id).toBe(o.orgId);
    expect(created.node_token).toMatch(/^nt_/);
    const id = created.pool.id;

    // The token works for heartbeats on HTTP: both transports share the services.
    const beat = await call(o.orchestration, "POST", "/inventory/heartbeat", {
      headers: { authorization: `Bearer ${created.node_token}` },
      body: { provider_instance_id: "grpc-node", vcpu_allocated: 1 },
    });
    expect(beat.status).toBe(200);

    const listed = await eventually(async () => {
      const res = await client.unary<{ pools: PoolMessage[] }>(
        pools,
        "ListPools",
        { owner_id: o.orgId },
        auth(),
      );
      const pool = res.pools.find((p) => p.id === id);
      return pool?.state === "Active" ? pool : undefined;
    }, 5000);
    expect(listed.node_count).toBe(1);
    expect(listed.ready_node_count).toBe(1);
    const inventory = await client.unary<{ nodes: NodeMessage[] }>(
      pools,
      "ListPoolInventory",
      { pool_id: id },
      auth(),
    );
    expect(inventory.nodes[0]).toMatchObject({
      pool_id: id,
      provider_instance_id: "grpc-node",
      vcpu_allocated: 1,
      state: "READY",
    });

    const deleting = await client.unary<PoolAnswer>(pools, "DeletePool", { pool_id: id }, auth());
    expect(deleting.pool.state).toBe("Deleting");
  }, 30_000);

  test("INVALID_ARGUMENT for an unknown provider, NOT_FOUND for an unknown pool, UNAUTHENTICATED without a token", async () => {
    expect((await failureOf(client.unary(pools, "RegisterPool", { provider: "mars" }, auth()))).code).toBe(
      grpc.status.INVALID_ARGUMENT,
    );
    expect(
      (await failureOf(client.unary(pools, "DeletePool", { pool_id: crypto.randomUUID() }, auth()))).code,
    ).toBe(grpc.status.NOT_FOUND);
    expect((await failureOf(client.unary(pools, "ListPools", {}))).code).toBe(grpc.status.UNAUTHENTICATED);
    expect((await failureOf(client.unary(deployments, "ListDeployments", {}))).code).toBe(
      grpc.status.UNAUTHENTICATED,
    );
    expect((await failureOf(client.unary(registry, "ListModels", {}))).code).toBe(
      grpc.status.UNAUTHENTICATED,
    );
  }, 30_000);
});

describe("ModelRegistryService", () => {
  test("RegisterModel, GetModel, ListModels, DeleteModel; ALREADY_EXISTS on a duplicate", async () => {
    const model = {
      model_name: "g",
      model_version: "1",
      backend: "llama.cpp",
      artifact_uri: "/models/g.gguf",
    };
    const registered = await client.unary<{ model: ModelMessage }>(registry, "RegisterModel", model, auth());
    expect(registered.model).toMatchObject(model);
    expect((await failureOf(client.unary(registry, "RegisterModel", model, auth()))).code).toBe(
      grpc.status.ALREADY_EXISTS,
    );
    const got = await client.unary<{ model: ModelMessage }>(
      registry,
      "GetModel",
      { model_name: "g", model_version: "1" },
      auth(),
    );
    expect(got.model.backend).toBe("llama.cpp");
    const list = await client.unary<{ models: ModelMessage[] }>(
      registry,
      "ListModels",
      { model_name: "g" },
      auth(),
    );
    expect(list.models).toHaveLength(1);
    await client.unary(registry, "DeleteModel", { model_name: "g", model_version: "1" }, auth());
    expect(
      (await failureOf(client.unary(registry, "GetModel", { model_name: "g", model_version: "1" }, auth())))
        .code,
    ).toBe(grpc.status.NOT_FOUND);
    expect((await failureOf(client.unary(registry, "RegisterModel", { model_name: "h" }, auth()))).code).toBe(
      grpc.status.INVALID_ARGUMENT,
    );
  }, 30_000);
});

describe("ModelDeploymentService", () => {
  test("DeployModel -> RUNNING; DeleteDeployment terminates; StartDeployment; RemoveDeployment", async () => {
    const pool = await client.unary<PoolAnswer>(
      pools,
      "RegisterPool",
      { pool_name: "grpc-ext", provider: "external" },
      auth(),
    );
    const request = {
      model_name: "grpc-dep",
      pool_id: pool.pool.id,
      image: "none",
      engine: "openai-compatible",
      configuration: { fields: { endpoints: { listValue: { values: [{ stringValue: upstream.url }] } } } },
      input_price_per_million: 0.15,
      output_price_per_million: 0.6,
    };
    const deployed = await client.unary<{ deployment_id: string; status: string }>(
      deployments,
      "DeployModel",
      request,
      auth(),
    );
    expect(deployed.status).toBe("DEPLOYING");
    const id = deployed.deployment_id;
    expect((await failureOf(client.unary(deployments, "DeployModel", request, auth()))).code).toBe(
      grpc.status.ALREADY_EXISTS,
    );

    const running = await eventually(async () => {
      const res = await client.unary<DeploymentAnswer>(
        deployments,
        "GetDeployment",
        { deployment_id: id },
        auth(),
      );
      return res.deployment.status === "RUNNING" ? res.deployment : undefined;
    }, 10_000);
    expect(running).toMatchObject({
      name: "grpc-dep",
      engine: "openai-compatible",
      replicas: 1,
      org_id: o.orgId,
      input_price_per_million: 0.15,
      output_price_per_million: 0.6,
    });
    expect(running.observed_replicas[0]).toMatchObject({
      index: 0,
      state: "READY",
      endpoint: `${upstream.url}/v1`,
    });
    expect(running.transitions.map((t) => t.to)).toEqual(["DEPLOYING", "RUNNING"]);

    const list = await client.unary<{ deployments: DeploymentMessage[] }>(
      deployments,
      "ListDeployments",
      {},
      auth(),
    );
    expect(list.deployments.map((d) => d.deployment_id)).toContain(id);

    // Start of a running deployment: FAILED_PRECONDITION; so is removing it.
    expect(
      (await failureOf(client.unary(deployments, "StartDeployment", { deployment_id: id }, auth()))).code,
    ).toBe(grpc.status.FAILED_PRECONDITION);
    expect(
      (await failureOf(client.unary(deployments, "RemoveDeployment", { deployment_id: id }, auth()))).code,
    ).toBe(grpc.status.FAILED_PRECONDITION);

    const terminated = await client.unary<DeploymentAnswer>(
      deployments,
      "DeleteDeployment",
      { deployment_id: id },
      auth(),
    );
    expect(terminated.deployment.status).toBe("STOPPING");
    await eventually(async () => {
      const res = await client.unary<DeploymentAnswer>(
        deployments,
        "GetDeployment",
        { deployment_id: id },
        auth(),
      );
      return res.deployment.status === "STOPPED";
    }, 10_000);
    const started = await client.unary<DeploymentAnswer>(
      deployments,
      "StartDeployment",
      { deployment_id: id },
      auth(),
    );
    expect(started.deployment.status).toBe("DEPLOYING");
    await eventually(async () => {
      const res = await client.unary<DeploymentAnswer>(
        deployments,
        "GetDeployment",
        { deployment_id: id },
        auth(),
      );
      return res.deployment.status === "RUNNING";
    }, 10_000);
    await client.unary(deployments, "DeleteDeployment", { deployment_id: id }, auth());
    await eventually(async () => {
      const res = await client.unary<DeploymentAnswer>(
        deployments,
        "GetDeployment",
        { deployment_id: id },
        auth(),
      );
      return res.deployment.status === "STOPPED";
    }, 10_000);
    await client.unary(deployments, "RemoveDeployment", { deployment_id: id }, auth());
    expect(
      (await failureOf(client.unary(deployments, "GetDeployment", { deployment_id: id }, auth()))).code,
    ).toBe(grpc.status.NOT_FOUND);
  }, 30_000);

  test("INVALID_ARGUMENT for missing fields or replicas below 1, NOT_FOUND for an unknown pool", async () => {
    const missing = await failureOf(
      client.unary(deployments, "DeployModel", { pool_id: crypto.randomUUID() }, auth()),
    );
    expect(missing.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(missing.details).toContain("model_name");
    const replicas = await failureOf(
      client.unary(
        deployments,
        "DeployModel",
        { model_name: "r", pool_id: crypto.randomUUID(), image: "x", replicas: 0 },
        auth(),
      ),
    );
    expect(replicas.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(replicas.details).toContain("replicas");
    const price = await failureOf(
      client.unary(
        deployments,
        "DeployModel",
        { model_name: "q", pool_id: crypto.randomUUID(), image: "x", output_price_per_million: -2 },
        auth(),
      ),
    );
    expect(price.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(price.details).toContain("output_price_per_million");
    const pool = await failureOf(
      client.unary(
        deployments,
        "DeployModel",
        { model_name: "p", pool_id: crypto.randomUUID(), image: "x" },
        auth(),
      ),
    );
    expect(pool.code).toBe(grpc.status.NOT_FOUND);
  }, 30_000);
});
