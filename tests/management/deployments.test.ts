// /management/deployments on the filtration gateway: the same orchestration services, seen from the
// management API the dashboard uses.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { organizations } from "#db/schema/index.ts";
import type { GET as deploymentDetails } from "#routes/filtration/management/deployments/[id].ts";
import type {
  POST as deploy,
  GET as listDeployments,
} from "#routes/filtration/management/deployments/index.ts";
import type { GET as deploymentStatus } from "#routes/orchestration/deployment/status/[deployment_id].ts";
import { ensureBuiltinRoles } from "#services/orgs/builtin-roles.ts";
import { createPool, type OrchestrationTest, startOrchestrationTest } from "../orchestration/support.ts";
import { call, createUser, type ErrorBody } from "../support/app.ts";
import { fieldsOf } from "./support.ts";

let o: OrchestrationTest;
let poolId: string;

beforeAll(async () => {
  o = await startOrchestrationTest();
  poolId = (await createPool(o, { provider: "external" })).pool_id;
}, 60_000);
afterAll(() => o.t.close());

/** Deploys `name` as `token`; a test that expects a refusal reads it as `create<ErrorBody>(...)`. */
const create = <R = typeof deploy>(name: string, token = o.token) =>
  call<R>(o.filtration, "POST", "/management/deployments", {
    token,
    body: {
      model_name: name,
      pool_id: poolId,
      engine: "openai-compatible",
      image: "none",
      configuration: { endpoints: ["http://127.0.0.1:9/v1"] },
    },
  });

test("create, list and read a deployment through the management API", async () => {
  const created = await create("managed-one");
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ status: "DEPLOYING" });
  const id = created.body.deployment_id;

  const list = await call<typeof listDeployments>(o.filtration, "GET", "/management/deployments", {
    token: o.token,
  });
  expect(list.status).toBe(200);
  expect(list.body.deployments.map((d: { deployment_id: string }) => d.deployment_id)).toContain(id);

  const details = await call<typeof deploymentDetails>(o.filtration, "GET", `/management/deployments/${id}`, {
    token: o.token,
  });
  const status = await call<typeof deploymentStatus>(o.orchestration, "GET", `/deployment/status/${id}`, {
    token: o.token,
  });
  expect(details.status).toBe(200);
  expect(details.body).toEqual(status.body);
});

test("a duplicate name is 409, a missing field 400 naming it", async () => {
  expect((await create("managed-dup")).status).toBe(201);
  const dup = await create<ErrorBody>("managed-dup");
  expect(dup.status).toBe(409);
  expect(dup.body.error.code).toBe("conflict");
  const bad = await call<ErrorBody>(o.filtration, "POST", "/management/deployments", {
    token: o.token,
    body: { model_name: "x" },
  });
  expect(bad.status).toBe(400);
  expect(fieldsOf(bad.body)).toContain("pool_id");
});

test("delete of a deployment that is not stopped is 409; another organization's is 404", async () => {
  const id = (await create("managed-live")).body.deployment_id;
  const live = await call(o.filtration, "DELETE", `/management/deployments/${id}`, { token: o.token });
  expect(live.status).toBe(409);

  const [other] = await o.t.app.db.insert(organizations).values({ name: "other-org" }).returning();
  await ensureBuiltinRoles(o.t.app.db, other?.id as string);
  const outsider = await createUser(o.t, o.filtration, "outsider@example.com", "admin", other?.id);
  for (const method of ["GET", "DELETE"]) {
    const res = await call(o.filtration, method, `/management/deployments/${id}`, {
      token: outsider.access_token,
    });
    expect(res.status).toBe(404);
  }
});

test("a viewer may read but not create", async () => {
  const viewer = await createUser(o.t, o.filtration, "viewer-mgmt@example.com", "viewer");
  expect(
    (await call(o.filtration, "GET", "/management/deployments", { token: viewer.access_token })).status,
  ).toBe(200);
  expect((await create("viewer-made", viewer.access_token)).status).toBe(403);
});
