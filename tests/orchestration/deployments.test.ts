// Deployments over HTTP without a model to load (the external provider): validation, the state
// machine and its 409s, transitions, replicas and their endpoints, heartbeats that go silent.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { DELETE as deleteDeployment } from "#routes/orchestration/deployment/delete/[deployment_id].ts";
import type { POST as deployRoute } from "#routes/orchestration/deployment/deploy.ts";
import type { GET as listDeployments } from "#routes/orchestration/deployment/deployments.ts";
import type { GET as inventoryRoute } from "#routes/orchestration/deployment/list/pool/[pool_id]/inventory.ts";
import type { POST as startRoute } from "#routes/orchestration/deployment/start.ts";
import type { GET as statusRoute } from "#routes/orchestration/deployment/status/[deployment_id].ts";
import type { POST as terminateRoute } from "#routes/orchestration/deployment/terminate.ts";
import { routableEndpoints } from "#services/orchestration/deployment-queries.ts";
import { type Reconciler, startReconciler } from "#services/orchestration/reconciler.ts";
import { type BodyOf, call, createUser, type ErrorBody } from "../support/app.ts";
import {
  createPool,
  eventually,
  fakeOpenAIServer,
  firstReplica,
  type OrchestrationTest,
  otherTenant,
  startOrchestrationTest,
} from "./support.ts";

/** A deployment's status, with the configuration it must leave out (a test checks it is absent). */
interface StatusBody extends BodyOf<typeof statusRoute> {
  configuration?: unknown;
}

let o: OrchestrationTest;
let reconciler: Reconciler;
let upstream: ReturnType<typeof fakeOpenAIServer>;
let upstream2: ReturnType<typeof fakeOpenAIServer>;
let externalPool: string;
let localPool: string;

beforeAll(async () => {
  o = await startOrchestrationTest({
    HEARTBEAT_INTERVAL_MS: "100",
    // The unfetchable model below is on the loopback fake over http: the operator settings allowing it.
    MODEL_SOURCE_ALLOW_HTTP: "true",
    MODEL_SOURCE_ALLOWED_HOSTS: "127.0.0.1",
  });
  reconciler = startReconciler(o.t.app, { intervalMs: 100 });
  upstream = fakeOpenAIServer();
  upstream2 = fakeOpenAIServer();
  externalPool = (await createPool(o, { provider: "external" })).pool_id;
  localPool = (await createPool(o, { provider: "local" })).pool_id;
}, 60_000);
afterAll(async () => {
  await reconciler.stop({ stopWorkers: true });
  upstream.stop();
  upstream2.stop();
  await o.t.close();
});

// Typed as the route's answer; a test expecting a refusal reads it as `deploy<ErrorBody>(...)`.
const deploy = <R = typeof deployRoute>(body: Record<string, unknown>, token = o.token) =>
  call<R>(o.orchestration, "POST", "/deployment/deploy", { token, body });
const status = (id: string, token = o.token) =>
  call<StatusBody>(o.orchestration, "GET", `/deployment/status/${id}`, { token });
const until = (id: string, state: string, timeoutMs = 10_000) =>
  eventually(
    async () => {
      const res = await status(id);
      return res.body.status === state ? res.body : undefined;
    },
    timeoutMs,
    `status ${state}`,
  );
const external = (name: string, extra: Record<string, unknown> = {}) => ({
  model_name: name,
  pool_id: externalPool,
  image: "none",
  engine: "openai-compatible",
  configuration: { endpoints: [upstream.url] },
  ...extra,
});
const fieldsOf = (res: { body: { error: { details?: { fields?: { field: string }[] } } } }) =>
  (res.body.error.details?.fields ?? []).map((f) => f.field);

describe("POST /deployment/deploy: bad input is 400 naming the field (404 for the pool), nothing created", () => {
  test("required fields, replicas, engine, provider options and the model source", async () => {
    const before = await call<typeof listDeployments>(o.orchestration, "GET", "/deployment/deployments", {
      token: o.token,
    });
    const cases: [Record<string, unknown>, string][] = [
      [{ pool_id: externalPool, image: "x" }, "model_name"],
      [{ model_name: "a", image: "x" }, "pool_id"],
      // An image is required where one runs (local), not on an external pool (nothing runs there).
      [{ model_name: "a", pool_id: localPool }, "image"],
      [
        external("a", { configuration: { endpoints: [upstream.url], api_key: "sk-in-the-deployment" } }),
        "configuration.api_key",
      ],
      [
        external("a", { configuration: { endpoints: [upstream.url], credential: "nobody-stored-this" } }),
        "configuration.credential",
      ],
      [external("a", { replicas: 0 }), "replicas"],
      [external("bad name!"), "model_name"],
      [external("a", { engine: "warp-drive" }), "engine"],
      [external("a", { engine: "vllm" }), "engine"],
      [external("a", { configuration: {} }), "configuration.endpoints"],
      [external("a", { replicas: 2 }), "replicas"],
      [{ model_name: "a", pool_id: localPool, image: "x" }, "inference_model"],
      [
        { model_name: "a", pool_id: localPool, image: "x", inference_model: "/nowhere/model.gguf" },
        "inference_model",
      ],
      [
        { model_name: "a", pool_id: localPool, image: "x", inference_model: "file:///nowhere/model.gguf" },
        "inference_model",
      ],
      [
        {
          model_name: "a",
          pool_id: localPool,
          image: "x",
          engine: "openai-compatible",
          inference_model: "/nowhere",
        },
        "engine",
      ],
    ];
    for (const [body, field] of cases) {
      const res = await deploy<ErrorBody>(body);
      expect(res.status, `${field}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.error.code).toBe("validation_error");
      expect(fieldsOf(res)).toContain(field);
    }
    const unknownPool = await deploy(external("a", { pool_id: crypto.randomUUID() }));
    expect(unknownPool.status).toBe(404);
    const after = await call<typeof listDeployments>(o.orchestration, "GET", "/deployment/deployments", {
      token: o.token,
    });
    expect(after.body.deployments.length).toBe(before.body.deployments.length);
  }, 30_000);
});

describe("lifecycle on the external provider", () => {
  test("deploy -> DEPLOYING -> RUNNING; terminate -> STOPPED; start -> RUNNING; delete -> 404", async () => {
    const created = await deploy(
      external("ext-1", { model_version: "v1", configuration: { endpoints: [upstream.url, upstream2.url] } }),
    );
    expect(created.status).toBe(201);
    expect(created.body.status).toBe("DEPLOYING");
    const id = created.body.deployment_id;

    const running = await until(id, "RUNNING");
    expect(running).toMatchObject({
      deployment_id: id,
      model_name: "ext-1",
      model_version: "v1",
      pool_id: externalPool,
      provider: "external",
      engine: "openai-compatible",
      image: "none",
      replicas: 2,
      failure_reason: null,
      desired_state: "running",
    });
    expect(running.endpoints.sort()).toEqual([`${upstream.url}/v1`, `${upstream2.url}/v1`].sort());
    expect(running.observed_replicas.map((r: { state: string }) => r.state)).toEqual(["READY", "READY"]);
    expect(running.transitions.map((t: { from: string | null; to: string }) => [t.from, t.to])).toEqual([
      [null, "DEPLOYING"],
      ["DEPLOYING", "RUNNING"],
    ]);
    expect(running.configuration).toBeUndefined();

    // Deleting a running deployment, or starting it again, is a conflict.
    expect(
      (await call(o.orchestration, "DELETE", `/deployment/delete/${id}`, { token: o.token })).status,
    ).toBe(409);
    const startRunning = await call<ErrorBody>(o.orchestration, "POST", "/deployment/start", {
      token: o.token,
      body: { deployment_id: id },
    });
    expect(startRunning.status).toBe(409);
    expect(startRunning.body.error.code).toBe("conflict");

    const terminated = await call<typeof terminateRoute>(o.orchestration, "POST", "/deployment/terminate", {
      token: o.token,
      body: { deployment_id: id },
    });
    expect(terminated.status).toBe(200);
    expect(terminated.body.status).toBe("STOPPING");
    const stopped = await until(id, "STOPPED");
    expect(stopped.observed_replicas.every((r: { state: string }) => r.state === "STOPPED")).toBe(true);
    expect(stopped.endpoints).toEqual([]);
    expect(
      (
        await call(o.orchestration, "POST", "/deployment/terminate", {
          token: o.token,
          body: { deployment_id: id },
        })
      ).status,
    ).toBe(409);

    const started = await call<typeof startRoute>(o.orchestration, "POST", "/deployment/start", {
      token: o.token,
      body: { deployment_id: id },
    });
    expect(started.status).toBe(200);
    expect(started.body.status).toBe("DEPLOYING");
    const again = await until(id, "RUNNING");
    expect(again.transitions.map((t: { to: string }) => t.to)).toEqual([
      "DEPLOYING",
      "RUNNING",
      "STOPPING",
      "STOPPED",
      "DEPLOYING",
      "RUNNING",
    ]);
    for (const t of again.transitions) expect(Number.isNaN(Date.parse(t.at))).toBe(false);

    await call(o.orchestration, "POST", "/deployment/terminate", {
      token: o.token,
      body: { deployment_id: id },
    });
    await until(id, "STOPPED");
    const removed = await call<typeof deleteDeployment>(
      o.orchestration,
      "DELETE",
      `/deployment/delete/${id}`,
      {
        token: o.token,
      },
    );
    expect(removed.status).toBe(200);
    expect((await status(id)).status).toBe(404);
    // The name is free again.
    const reused = await deploy(external("ext-1"));
    expect(reused.status).toBe(201);
  }, 30_000);

  test("a duplicate name is 409", async () => {
    expect((await deploy(external("dup-name"))).status).toBe(201);
    const again = await deploy<ErrorBody>(external("dup-name"));
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("conflict");
  }, 30_000);

  test("terminate of a deployment still DEPLOYING is 409; one that never answers stays DEPLOYING", async () => {
    const dead = fakeOpenAIServer();
    dead.setUp(false);
    const created = await deploy(external("never-up", { configuration: { endpoints: [dead.url] } }));
    const id = created.body.deployment_id;
    // Passes that saw it (its endpoint probed and found silent), in place of 300 ms of the interval's.
    await reconciler.pass();
    await reconciler.pass();
    expect((await status(id)).body.status).toBe("DEPLOYING");
    const res = await call<ErrorBody>(o.orchestration, "POST", "/deployment/terminate", {
      token: o.token,
      body: { deployment_id: id },
    });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain("DEPLOYING");
    dead.setUp(true);
    await until(id, "RUNNING");
    dead.stop();
  }, 30_000);

  test("another organization's deployment is 404 everywhere; the list does not show it", async () => {
    const created = await deploy(external("private"));
    const id = created.body.deployment_id;
    const stranger = await otherTenant(o, "stranger@example.com");
    expect((await status(id, stranger.access_token)).status).toBe(404);
    for (const [method, path, body] of [
      ["POST", "/deployment/terminate", { deployment_id: id }],
      ["POST", "/deployment/start", { deployment_id: id }],
      ["DELETE", `/deployment/delete/${id}`, undefined],
      ["GET", `/deployment/logs/${id}`, undefined],
      ["GET", `/deployment/logs/${id}/stream`, undefined],
    ] as const) {
      expect(
        (await call(o.orchestration, method, path, { token: stranger.access_token, body })).status,
        path,
      ).toBe(404);
    }
    const list = await call<typeof listDeployments>(o.orchestration, "GET", "/deployment/deployments", {
      token: stranger.access_token,
    });
    expect(list.body.deployments).toEqual([]);
    const filtered = await call<typeof listDeployments>(
      o.orchestration,
      "GET",
      `/deployment/deployments?org_id=${o.orgId}`,
      { token: stranger.access_token },
    );
    expect(filtered.body.deployments).toEqual([]);
    const pool404 = await deploy(external("x", { pool_id: externalPool }), stranger.access_token);
    expect(pool404.status).toBe(404);
  }, 30_000);

  test("a viewer lists and reads, but cannot deploy or terminate", async () => {
    const viewer = await createUser(o.t, o.filtration, "dep-viewer@example.com", "viewer");
    expect(
      (await call(o.orchestration, "GET", "/deployment/deployments", { token: viewer.access_token })).status,
    ).toBe(200);
    expect((await deploy(external("by-viewer"), viewer.access_token)).status).toBe(403);
  }, 30_000);
});

describe("heartbeats and routing", () => {
  test("a replica whose node misses three heartbeats is UNHEALTHY and not routed to; a heartbeat brings it back", async () => {
    const pool = await createPool(o, { provider: "external" });
    const created = await deploy(external("beating", { pool_id: pool.pool_id }));
    const id = created.body.deployment_id;
    const running = await until(id, "RUNNING");
    const instance = firstReplica(running).provider_instance_id;
    if (!instance) throw new Error("the running replica has no provider instance");
    const beat = () =>
      call(o.orchestration, "POST", "/inventory/heartbeat", {
        headers: { authorization: `Bearer ${pool.node_token}` },
        body: { provider_instance_id: instance, state: "READY" },
      });
    expect((await beat()).status).toBe(200);
    expect(await routableEndpoints(o.t.app.db, o.orgId, "beating")).toEqual([`${upstream.url}/v1`]);

    // Silent for more than three intervals of 100 ms.
    const unhealthy = await eventually(
      async () => {
        const res = await status(id);
        return res.body.observed_replicas[0]?.state === "UNHEALTHY" ? res.body : undefined;
      },
      5000,
      "UNHEALTHY replica",
    );
    expect(unhealthy.endpoints).toEqual([]);
    expect(await routableEndpoints(o.t.app.db, o.orgId, "beating")).toEqual([]);
    const inventory = await call<typeof inventoryRoute>(
      o.orchestration,
      "GET",
      `/deployment/list/pool/${pool.pool_id}/inventory`,
      { token: o.token },
    );
    expect(inventory.body.nodes[0]?.state).toBe("UNHEALTHY");

    // The node beats again, as a node that is back does: with one beat alone the replica is READY for
    // only three intervals (300 ms) before it is silent again, which a loaded machine's polling can miss.
    await eventually(
      async () => {
        await beat();
        return (await status(id)).body.observed_replicas[0]?.state === "READY";
      },
      5000,
      "READY again",
    );
  }, 30_000);
});

describe("deleting a pool that hosts deployments", () => {
  test("409 while one is not stopped; once stopped, the pool goes with its stopped deployments", async () => {
    const pool = await createPool(o, { provider: "external" });
    const created = await deploy(external("on-doomed-pool", { pool_id: pool.pool_id }));
    const id = created.body.deployment_id;
    await until(id, "RUNNING");
    const busy = await call<ErrorBody>(o.orchestration, "POST", `/deployment/deletepool/${pool.pool_id}`, {
      token: o.token,
    });
    expect(busy.status).toBe(409);
    expect(busy.body.error.message).toContain("on-doomed-pool");
    await call(o.orchestration, "POST", "/deployment/terminate", {
      token: o.token,
      body: { deployment_id: id },
    });
    await until(id, "STOPPED");
    expect(
      (await call(o.orchestration, "POST", `/deployment/deletepool/${pool.pool_id}`, { token: o.token }))
        .status,
    ).toBe(200);
    // A deployment cannot land on a pool being deleted.
    const late = await deploy(external("too-late", { pool_id: pool.pool_id }));
    expect([404, 409]).toContain(late.status);
    await eventually(
      async () => (await status(id)).status === 404,
      5000,
      "the deployment to go with its pool",
    );
  }, 30_000);
});

describe("a model source that fails after the deploy was accepted", () => {
  test("an http(s) model that cannot be fetched turns the deployment FAILED with the reason", async () => {
    const url = `${upstream.url}/models/missing.gguf`;
    const created = await deploy({
      model_name: "unfetchable",
      pool_id: localPool,
      image: "llama.cpp",
      inference_model: url,
    });
    expect(created.status).toBe(201);
    const failed = await until(created.body.deployment_id, "FAILED");
    expect(failed.failure_reason).toBe(`could not fetch ${url}: HTTP 404`);
    expect(failed.transitions.map((t: { to: string }) => t.to)).toEqual(["DEPLOYING", "FAILED"]);
  }, 30_000);
});
