// A pool's size: the most replicas its deployments may want at once (each replica one node). The API,
// gRPC and the dashboard (tests/dashboard/compute-pages.test.ts) take it at creation; deploy, scale and
// start past it are 409 naming `replicas`; stopped deployments and scaling down do not count against it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { deployments } from "#db/schema/index.ts";
import type { POST as deployRoute } from "#routes/orchestration/deployment/deploy.ts";
import type { GET as listPools } from "#routes/orchestration/deployment/listPools/[owner_id].ts";
import { writeTinyGguf } from "#scripts/make-tiny-gguf.ts";
import { fieldsOf } from "../management/support.ts";
import { call, type ErrorBody } from "../support/app.ts";
import { createPool, type OrchestrationTest, startOrchestrationTest } from "./support.ts";

let o: OrchestrationTest;
let model: string;

beforeAll(async () => {
  o = await startOrchestrationTest();
  model = join(o.t.config.dataDir, "tiny.gguf");
  writeTinyGguf(model);
}, 60_000);
afterAll(() => o.t.close(), 30_000);

// A test that reads the answer names its type: `post<ErrorBody>(...)`.
const post = <R = unknown>(path: string, body: Record<string, unknown>) =>
  call<R>(o.orchestration, "POST", path, { token: o.token, body });
// No reconciler runs here: deployments stay as the API wrote them, no worker starts.
const deploy = <R = typeof deployRoute>(poolId: string, name: string, replicas: number) =>
  post<R>("/deployment/deploy", {
    model_name: name,
    pool_id: poolId,
    engine: "llama.cpp",
    image: "llama.cpp",
    inference_model: model,
    replicas,
  });

test("createpool takes a size from 1 to 1024 (absent: no limit), shown by the pool and the list", async () => {
  const sized = await createPool(o, { provider: "local", size: 3 });
  expect(sized).toMatchObject({ size: 3 });
  expect((await createPool(o, { provider: "local" })) as unknown).toMatchObject({ size: null });
  const list = await call<typeof listPools>(o.orchestration, "GET", `/deployment/listPools/${o.orgId}`, {
    token: o.token,
  });
  expect(list.body.pools.find((p: { pool_id: string }) => p.pool_id === sized.pool_id)?.size).toBe(3);
  for (const size of [0, 1025, 1.5, "two"]) {
    const res = await post<ErrorBody>("/deployment/createpool", { provider: "local", size });
    expect(res.status).toBe(400);
    expect(fieldsOf(res.body)).toEqual(["size"]);
  }
});

test("deploy, scale and start past the size are 409 naming replicas; stopped deployments free room", async () => {
  const pool = await createPool(o, { provider: "local", size: 3 });
  const a = await deploy(pool.pool_id, "size-a", 2);
  expect(a.status).toBe(201);
  const refused = await deploy<ErrorBody>(pool.pool_id, "size-b", 2);
  expect(refused.status).toBe(409);
  expect(refused.body.error).toMatchObject({ code: "conflict" });
  expect(refused.body.error.message).toContain("at most 1: pool");
  expect(fieldsOf(refused.body)).toEqual(["replicas"]);
  const b = await deploy(pool.pool_id, "size-b", 1);
  expect(b.status).toBe(201);
  const bId = b.body.deployment_id;
  const aId = a.body.deployment_id;

  expect((await post("/deployment/scale", { deployment_id: bId, replicas: 2 })).status).toBe(409);
  // Down is always allowed, and frees room for the other.
  expect((await post("/deployment/scale", { deployment_id: aId, replicas: 1 })).status).toBe(200);
  expect((await post("/deployment/scale", { deployment_id: bId, replicas: 2 })).status).toBe(200);

  // A stopped deployment wants nothing: its room goes to others, and starting it again needs room.
  await o.t.app.db
    .update(deployments)
    .set({ status: "STOPPED", desiredState: "stopped" })
    .where(eq(deployments.id, aId));
  expect((await post("/deployment/scale", { deployment_id: bId, replicas: 3 })).status).toBe(200);
  const start = await post<ErrorBody>("/deployment/start", { deployment_id: aId });
  expect(start.status).toBe(409);
  expect(fieldsOf(start.body)).toEqual(["replicas"]);
  expect((await post("/deployment/scale", { deployment_id: bId, replicas: 2 })).status).toBe(200);
  expect((await post("/deployment/start", { deployment_id: aId })).status).toBe(200);
});

test("a pool without a size takes any number, up to a deployment's own limit", async () => {
  const pool = await createPool(o, { provider: "local" });
  expect((await deploy(pool.pool_id, "unsized-a", 8)).status).toBe(201);
  expect((await deploy(pool.pool_id, "unsized-b", 8)).status).toBe(201);
});
