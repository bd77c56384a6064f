// Stale nodes leave the inventory: OFFLINE or UNHEALTHY, silent for NODE_RETIRE_AFTER_S (default one
// hour), and hosting no replica still wanted. Nodes that still report, or that a live replica names,
// stay; the reconciler does it on its own.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { deployments, nodes, replicas } from "#db/schema/index.ts";
import type { GET as inventoryRoute } from "#routes/orchestration/deployment/list/pool/[pool_id]/inventory.ts";
import { loadConfig } from "#server/config.ts";
import { retireStaleNodes } from "#services/orchestration/inventory.ts";
import { startReconciler } from "#services/orchestration/reconciler.ts";
import { call } from "../support/app.ts";
import { createPool, eventually, type OrchestrationTest, startOrchestrationTest } from "./support.ts";

let o: OrchestrationTest;

beforeAll(async () => {
  o = await startOrchestrationTest({ NODE_RETIRE_AFTER_S: "60" });
}, 60_000);
afterAll(async () => {
  await o.t.close();
});

const beat = (nodeToken: string, id: string, state: string) =>
  call(o.orchestration, "POST", "/inventory/heartbeat", {
    headers: { authorization: `Bearer ${nodeToken}` },
    body: { provider_instance_id: id, state },
  });

const inventory = async (poolId: string): Promise<string[]> => {
  const res = await call<typeof inventoryRoute>(
    o.orchestration,
    "GET",
    `/deployment/list/pool/${poolId}/inventory`,
    {
      token: o.token,
    },
  );
  return res.body.nodes.map((n) => n.provider_instance_id).sort();
};

test("NODE_RETIRE_AFTER_S: one hour unless set, whole seconds from 1 to 30 days", () => {
  const base = { DATA_DIR: o.t.config.dataDir, ADMIN_PASSWORD: "long enough password" };
  expect(loadConfig(base).nodeRetireAfterS).toBe(3600);
  expect(loadConfig({ ...base, NODE_RETIRE_AFTER_S: "90" }).nodeRetireAfterS).toBe(90);
  for (const bad of ["0", "1.5", "-3", "2592001", "an hour"])
    expect(() => loadConfig({ ...base, NODE_RETIRE_AFTER_S: bad })).toThrow("NODE_RETIRE_AFTER_S");
});

test("silent OFFLINE and UNHEALTHY nodes are retired; recent ones and those a live replica names stay", async () => {
  const pool = await createPool(o, { provider: "external" });
  for (const [id, state] of [
    ["gone", "OFFLINE"],
    ["silent", "UNHEALTHY"],
    ["still-ready", "READY"],
    ["busy", "OFFLINE"],
    ["stopped-replica", "OFFLINE"],
  ] as const)
    expect((await beat(pool.node_token, id, state)).status).toBe(200);
  // A live replica names "busy"; a stopped one names "stopped-replica".
  const [deployment] = await o.t.app.db
    .insert(deployments)
    .values({
      orgId: o.orgId,
      name: `retire-${crypto.randomUUID().slice(0, 6)}`,
      poolId: pool.pool_id,
      engine: "openai-compatible",
      image: "openai-compatible",
      status: "RUNNING",
    })
    .returning();
  if (!deployment) throw new Error("no deployment");
  await o.t.app.db.insert(replicas).values([
    { deploymentId: deployment.id, index: 0, state: "READY", providerInstanceId: "busy" },
    { deploymentId: deployment.id, index: 1, state: "STOPPED", providerInstanceId: "stopped-replica" },
  ]);

  // Within NODE_RETIRE_AFTER_S nothing goes.
  expect(await retireStaleNodes(o.t.app)).toEqual([]);
  // Two minutes later, past the 60 s.
  const later = { ...o.t.app, clock: () => new Date(Date.now() + 120_000) };
  const retired = await retireStaleNodes(later);
  expect(retired.map((n) => `${n.providerInstanceId}:${n.state}`).sort()).toEqual([
    "gone:OFFLINE",
    "silent:UNHEALTHY",
    "stopped-replica:OFFLINE",
  ]);
  expect(retired.every((n) => n.poolId === pool.pool_id)).toBe(true);
  // A READY node is not retired (it turns UNHEALTHY first), nor is one a live replica runs on.
  expect(await inventory(pool.pool_id)).toEqual(["busy", "still-ready"]);
  // A retired node that reports again comes back.
  expect((await beat(pool.node_token, "gone", "READY")).status).toBe(200);
  expect(await inventory(pool.pool_id)).toEqual(["busy", "gone", "still-ready"]);
  await o.t.app.db.delete(deployments).where(eq(deployments.id, deployment.id));
}, 30_000);

test("the reconciler retires them on its own", async () => {
  const pool = await createPool(o, { provider: "external" });
  expect((await beat(pool.node_token, "left-behind", "OFFLINE")).status).toBe(200);
  await o.t.app.db
    .update(nodes)
    .set({ lastHeartbeatAt: new Date(Date.now() - 61_000) })
    .where(eq(nodes.poolId, pool.pool_id));
  const reconciler = startReconciler(o.t.app, { intervalMs: 50, orphanScanMs: 50 });
  try {
    await eventually(async () => (await inventory(pool.pool_id)).length === 0, 10_000, "the node retired");
  } finally {
    await reconciler.stop();
  }
}, 30_000);
