// Compute pools over HTTP: creation with its node token, Provisioning -> Active by the reconciler,
// listing by owner with node counts, inventory, deletion and its 409.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { POST as createPoolRoute } from "#routes/orchestration/deployment/createpool.ts";
import type { POST as deletePool } from "#routes/orchestration/deployment/deletepool/[pool_id].ts";
import type { GET as inventoryRoute } from "#routes/orchestration/deployment/list/pool/[pool_id]/inventory.ts";
import type { GET as listPools } from "#routes/orchestration/deployment/listPools/[owner_id].ts";
import type { GET as resources } from "#routes/orchestration/deployment/provider/resources.ts";
import type { POST as heartbeat } from "#routes/orchestration/inventory/heartbeat.ts";
import type { Reconciler } from "#services/orchestration/reconciler.ts";
import { startReconciler } from "#services/orchestration/reconciler.ts";
import { call, createUser, type ErrorBody } from "../support/app.ts";
import { createPool, eventually, type OrchestrationTest, startOrchestrationTest } from "./support.ts";

/** A pool as the list shows it, with the node token the list must not carry. */
interface ListedPool {
  pool_id: string;
  state: string;
  node_token?: string;
}

let o: OrchestrationTest;
let reconciler: Reconciler;

beforeAll(async () => {
  o = await startOrchestrationTest();
  reconciler = startReconciler(o.t.app, { intervalMs: 100 });
}, 60_000);
afterAll(async () => {
  await reconciler.stop({ stopWorkers: true });
  await o.t.close();
});

describe("POST /deployment/createpool", () => {
  test("creates a local pool that turns Active, and returns its node token once", async () => {
    const res = await call<typeof createPoolRoute>(o.orchestration, "POST", "/deployment/createpool", {
      token: o.token,
      body: {
        pool_name: "here",
        owner_type: "org",
        owner_id: o.orgId,
        provider: "local",
        max_cost_per_hour: 0,
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      pool_name: "here",
      provider: "local",
      owner_id: o.orgId,
      node_count: 0,
    });
    expect(res.body.node_token).toMatch(/^nt_/);
    const id = res.body.pool_id;
    const active = await eventually(
      async () => {
        // Read through a local shape: the test checks the list leaves out node_token, which the
        // route's Pool schema does not name.
        const list = await call<{ pools: ListedPool[] }>(
          o.orchestration,
          "GET",
          `/deployment/listPools/${o.orgId}`,
          {
            token: o.token,
          },
        );
        const pool = list.body.pools.find((p) => p.pool_id === id);
        return pool?.state === "Active" ? pool : undefined;
      },
      5000,
      "the pool to be Active",
    );
    expect(active.node_token).toBeUndefined();
  }, 30_000);

  test("defaults: local provider, the caller's organization, a generated name", async () => {
    const res = await call<typeof createPoolRoute>(o.orchestration, "POST", "/deployment/createpool", {
      token: o.token,
      body: {},
    });
    expect(res.status).toBe(201);
    expect(res.body.provider).toBe("local");
    expect(res.body.owner_type).toBe("org");
    expect(res.body.owner_id).toBe(o.orgId);
    expect(res.body.pool_name).toMatch(/^local-/);
  }, 30_000);

  test("400 naming the field: unknown provider, provider not available, another owner, bad JSON", async () => {
    const bad = async (body: Record<string, unknown>, field: string) => {
      const res = await call<ErrorBody>(o.orchestration, "POST", "/deployment/createpool", {
        token: o.token,
        body,
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("validation_error");
      expect(res.body.error.details?.fields?.map((f) => f.field)).toContain(field);
    };
    await bad({ provider: "aws" }, "provider");
    await bad({ owner_id: crypto.randomUUID() }, "owner_id");
    await bad({ scheduling_policy_json: "{not json" }, "scheduling_policy_json");
    await bad({ max_cost_per_hour: -1 }, "max_cost_per_hour");
  }, 30_000);

  test("a duplicate pool name is 409", async () => {
    await createPool(o, { pool_name: "twice" });
    const res = await call<ErrorBody>(o.orchestration, "POST", "/deployment/createpool", {
      token: o.token,
      body: { pool_name: "twice" },
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("conflict");
  }, 30_000);

  test("needs pools:write: a viewer gets 403, no token 401", async () => {
    const viewer = await createUser(o.t, o.filtration, "pool-viewer@example.com", "viewer");
    expect(
      (
        await call<ErrorBody>(o.orchestration, "POST", "/deployment/createpool", {
          token: viewer.access_token,
          body: {},
        })
      ).status,
    ).toBe(403);
    expect(
      (await call<ErrorBody>(o.orchestration, "POST", "/deployment/createpool", { body: {} })).status,
    ).toBe(401);
    expect(
      (
        await call<typeof listPools>(o.orchestration, "GET", `/deployment/listPools/${o.orgId}`, {
          token: viewer.access_token,
        })
      ).status,
    ).toBe(200);
  }, 30_000);
});

describe("inventory and heartbeats", () => {
  test("a heartbeat with the node token upserts a node; the inventory and pool counts show it", async () => {
    const pool = await createPool(o);
    const beat = (state = "READY") =>
      call<typeof heartbeat>(o.orchestration, "POST", "/inventory/heartbeat", {
        headers: { authorization: `Bearer ${pool.node_token}` },
        body: {
          provider: "local",
          provider_instance_id: "node-a",
          gpu_allocated: 0,
          vcpu_allocated: 2,
          ram_gb_allocated: 4,
          health_score: 97,
          state,
          expose_url: "http://127.0.0.1:9999",
        },
      });
    const first = await beat();
    expect(first.status).toBe(200);
    expect(first.body.node).toMatchObject({
      provider_instance_id: "node-a",
      state: "READY",
      vcpu_allocated: 2,
    });
    expect((await beat()).status).toBe(200);
    const inventory = await call<typeof inventoryRoute>(
      o.orchestration,
      "GET",
      `/deployment/list/pool/${pool.pool_id}/inventory`,
      {
        token: o.token,
      },
    );
    expect(inventory.status).toBe(200);
    expect(inventory.body.nodes).toHaveLength(1);
    expect(inventory.body.nodes[0]).toMatchObject({
      pool_id: pool.pool_id,
      provider: "local",
      provider_instance_id: "node-a",
      gpu_allocated: 0,
      vcpu_allocated: 2,
      ram_gb_allocated: 4,
      health_score: 97,
      state: "READY",
      expose_url: "http://127.0.0.1:9999",
    });
    expect(typeof inventory.body.nodes[0]?.last_heartbeat_at).toBe("string");
    const list = await call<typeof listPools>(o.orchestration, "GET", `/deployment/listPools/${o.orgId}`, {
      token: o.token,
    });
    expect(list.body.pools.find((p) => p.pool_id === pool.pool_id)).toMatchObject({
      node_count: 1,
      ready_node_count: 1,
    });
  }, 30_000);

  test("a heartbeat with a wrong token is 401; the internal key needs pool_id", async () => {
    const wrong = await call<ErrorBody>(o.orchestration, "POST", "/inventory/heartbeat", {
      headers: { authorization: "Bearer nt_not-a-token" },
      body: { provider_instance_id: "x" },
    });
    expect(wrong.status).toBe(401);
    expect(
      (
        await call<ErrorBody>(o.orchestration, "POST", "/inventory/heartbeat", {
          body: { provider_instance_id: "x" },
        })
      ).status,
    ).toBe(401);
    const pool = await createPool(o);
    const internal = { "x-internal-api-key": o.t.config.internalApiKey };
    const noPool = await call<ErrorBody>(o.orchestration, "POST", "/inventory/heartbeat", {
      headers: internal,
      body: { provider_instance_id: "x" },
    });
    expect(noPool.status).toBe(400);
    const ok = await call<typeof heartbeat>(o.orchestration, "POST", "/inventory/heartbeat", {
      headers: internal,
      body: { provider_instance_id: "x", pool_id: pool.pool_id },
    });
    expect(ok.status).toBe(200);
  }, 30_000);

  test("the inventory of an unknown pool, or another organization's, is 404", async () => {
    expect(
      (
        await call<ErrorBody>(
          o.orchestration,
          "GET",
          `/deployment/list/pool/${crypto.randomUUID()}/inventory`,
          {
            token: o.token,
          },
        )
      ).status,
    ).toBe(404);
    expect(
      (
        await call<ErrorBody>(o.orchestration, "GET", "/deployment/list/pool/not-a-uuid/inventory", {
          token: o.token,
        })
      ).status,
    ).toBe(404);
  }, 30_000);
});

describe("POST /deployment/deletepool/{pool_id}", () => {
  test("an empty pool goes Deleting, then is gone", async () => {
    const pool = await createPool(o);
    await eventually(async () => {
      const list = await call<typeof listPools>(o.orchestration, "GET", `/deployment/listPools/${o.orgId}`, {
        token: o.token,
      });
      return list.body.pools.find((p) => p.pool_id === pool.pool_id && p.state === "Active");
    }, 5000);
    const res = await call<typeof deletePool>(
      o.orchestration,
      "POST",
      `/deployment/deletepool/${pool.pool_id}`,
      {
        token: o.token,
      },
    );
    expect(res.status).toBe(200);
    expect(res.body.state).toBe("Deleting");
    await eventually(
      async () => {
        const inv = await call<typeof inventoryRoute>(
          o.orchestration,
          "GET",
          `/deployment/list/pool/${pool.pool_id}/inventory`,
          {
            token: o.token,
          },
        );
        return inv.status === 404;
      },
      5000,
      "the pool to be gone",
    );
    expect(
      (
        await call<ErrorBody>(o.orchestration, "POST", `/deployment/deletepool/${pool.pool_id}`, {
          token: o.token,
        })
      ).status,
    ).toBe(404);
  }, 30_000);
});

describe("GET /deployment/provider/resources", () => {
  test("local lists this machine's cores and memory", async () => {
    const res = await call<typeof resources>(
      o.orchestration,
      "GET",
      "/deployment/provider/resources?provider=local",
      {
        token: o.token,
      },
    );
    expect(res.status).toBe(200);
    expect(res.body.provider).toBe("local");
    expect(res.body.cpu?.cores).toBeGreaterThan(0);
    expect(res.body.memory?.total_mib).toBeGreaterThan(0);
    expect(Array.isArray(res.body.gpus)).toBe(true);
    const byDefault = await call<typeof resources>(o.orchestration, "GET", "/deployment/provider/resources", {
      token: o.token,
    });
    expect(byDefault.body.provider).toBe("local");
    const unknown = await call<ErrorBody>(
      o.orchestration,
      "GET",
      "/deployment/provider/resources?provider=mars",
      {
        token: o.token,
      },
    );
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details?.fields?.[0]?.field).toBe("provider");
  }, 30_000);
});
