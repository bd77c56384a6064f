// POST/GET/DELETE /management/config/autoscaling: the contract's fields, deployment scope only, each
// malformed config a 400 naming its field, max_replicas checked against the provider, audited.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { auditLogs, deployments } from "#db/schema/index.ts";
import type {
  GET as policyRoute,
  POST as setPolicyRoute,
} from "#routes/filtration/management/config/[policy_type].ts";
import { defaultOrgId, fieldsOf, insertDeployment } from "../management/support.ts";
import { call, type ErrorBody, type Handler, loginAsAdmin, type TestApp } from "../support/app.ts";
import { startGateway } from "../support/callers.ts";

let t: TestApp;
let handle: Handler;
let token: string;
let deploymentId: string;

beforeAll(async () => {
  ({ t, handle } = await startGateway("filtration"));
  token = (await loginAsAdmin(handle)).access_token;
  deploymentId = (await insertDeployment(t.app.db, await defaultOrgId(t.app.db), { name: "scaled" })).id;
}, 60_000);
afterAll(() => t.close());

/** Sets an autoscaling policy: the policy answered, or the error named by `R` (`set<ErrorBody>`). */
const set = <R = typeof setPolicyRoute>(body: unknown) =>
  call<R>(handle, "POST", "/management/config/autoscaling", { token, body });
const valid = { min_replicas: 0, max_replicas: 3, target_in_flight_per_replica: 4 };

test("a deployment's autoscaling policy is stored, read back and audited", async () => {
  const config = {
    ...valid,
    scale_up_delay_s: 1,
    scale_down_delay_s: 30,
    cold_start_timeout_s: 60,
    max_queued: 20,
  };
  const res = await set({ deployment_id: deploymentId, config });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ policy_type: "autoscaling", deployment_id: deploymentId, config });
  const read = await call<typeof policyRoute>(
    handle,
    "GET",
    `/management/config/autoscaling?deployment_id=${deploymentId}`,
    {
      token,
    },
  );
  expect(read.body).toMatchObject({ source: "deployment", config });
  const audits = await t.app.db
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.action, "policy.update"), eq(auditLogs.targetId, "autoscaling")));
  expect(audits.map((a) => a.details)).toContainEqual({
    policy_type: "autoscaling",
    deployment_id: deploymentId,
  });
});

test("without a deployment it is 400 deployment_id; unset it reads as {} (no autoscaling)", async () => {
  const res = await set<ErrorBody>({ config: valid });
  expect(res.status).toBe(400);
  expect(fieldsOf(res.body)).toEqual(["deployment_id"]);
  const read = await call<typeof policyRoute>(handle, "GET", "/management/config/autoscaling", { token });
  expect(read.body).toMatchObject({ source: "default", config: {} });
});

test("malformed configs are 400 naming the field", async () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ max_replicas: 3, target_in_flight_per_replica: 4 }, "config.min_replicas"],
    [{ ...valid, min_replicas: -1 }, "config.min_replicas"],
    [{ ...valid, min_replicas: 4 }, "config.min_replicas"],
    [{ ...valid, max_replicas: 0 }, "config.max_replicas"],
    [{ ...valid, max_replicas: 33 }, "config.max_replicas"],
    [{ ...valid, target_in_flight_per_replica: 0 }, "config.target_in_flight_per_replica"],
    [{ ...valid, scale_down_delay_s: -5 }, "config.scale_down_delay_s"],
    [{ ...valid, cold_start_timeout_s: 0 }, "config.cold_start_timeout_s"],
    [{ ...valid, max_queued: 1.5 }, "config.max_queued"],
    [{ ...valid, replicas: 2 }, "config.replicas"],
  ];
  for (const [config, field] of cases) {
    const res = await set<ErrorBody>({ deployment_id: deploymentId, config });
    expect(res.status).toBe(400);
    expect(fieldsOf(res.body)).toContain(field);
  }
  expect((await set<ErrorBody>({ deployment_id: crypto.randomUUID(), config: valid })).status).toBe(404);
});

test("max_replicas beyond what the provider can run is 400 config.max_replicas", async () => {
  // An external deployment has one replica per listed endpoint: two here.
  await t.app.db
    .update(deployments)
    .set({ configuration: { endpoints: ["http://127.0.0.1:9/v1", "http://127.0.0.1:10/v1"] } })
    .where(eq(deployments.id, deploymentId));
  const res = await set<ErrorBody>({ deployment_id: deploymentId, config: valid });
  expect(res.status).toBe(400);
  expect(fieldsOf(res.body)).toEqual(["config.max_replicas"]);
  expect((await set({ deployment_id: deploymentId, config: { ...valid, max_replicas: 2 } })).status).toBe(
    200,
  );
});
