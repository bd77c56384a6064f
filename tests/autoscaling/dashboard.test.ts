// The dashboard: the deployment's policies page shows the autoscaling policy and saves it from its
// form (a bad one refused beside its field); the deployment's page says when it is scaled to zero and
// lists each decision with its replica counts and reason.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { GET as policyRoute } from "#routes/filtration/management/config/[policy_type].ts";
import { recordScaleDecision } from "#services/orchestration/state-machine.ts";
import { defaultOrgId, insertDeployment } from "../management/support.ts";
import { call, gatewayHandler, type Handler, loginAsAdmin, type TestApp } from "../support/app.ts";
import { startGateway } from "../support/callers.ts";
import { postForm, signInToDashboard } from "../support/dashboard.ts";

let t: TestApp;
let dashboard: Handler;
let filtration: Handler;
let cookie: string;
let id: string;
let csrf: string;

beforeAll(async () => {
  ({ t, handle: dashboard } = await startGateway("dashboard"));
  filtration = (await gatewayHandler(t.app, "filtration")).handle;
  id = (await insertDeployment(t.app.db, await defaultOrgId(t.app.db), { name: "elastic" })).id;
  let status: number;
  ({ status, csrf, cookie } = await signInToDashboard(dashboard));
  expect(status).toBe(303);
}, 60_000);
afterAll(() => t.close());

const post = (path: string, fields: Record<string, string>) =>
  postForm(dashboard, path, { ...fields, _csrf: csrf }, cookie);
const page = async (path: string) =>
  (await dashboard(new Request(`http://localhost${path}`, { headers: { cookie } }))).text();

test("the policies page shows the autoscaling form and saves it as the deployment's own", async () => {
  expect(await page(`/deployments/${id}/policies`)).toContain('id="policy-autoscaling"');
  const saved = await post(`/deployments/${id}/policies/autoscaling`, {
    min_replicas: "0",
    max_replicas: "3",
    target_in_flight_per_replica: "4",
    scale_down_delay_s: "30",
  });
  expect(saved.status).toBe(303);
  const token = (await loginAsAdmin(filtration)).access_token;
  const read = await call<typeof policyRoute>(
    filtration,
    "GET",
    `/management/config/autoscaling?deployment_id=${id}`,
    { token },
  );
  expect(read.body).toMatchObject({
    source: "deployment",
    config: { min_replicas: 0, max_replicas: 3, target_in_flight_per_replica: 4, scale_down_delay_s: 30 },
  });
  const html = await page(`/deployments/${id}/policies`);
  expect(html).toMatch(/name="scale_down_delay_s"[^>]*value="30"/);
});

test("a minimum above the maximum is refused beside its field", async () => {
  const res = await post(`/deployments/${id}/policies/autoscaling`, {
    min_replicas: "4",
    max_replicas: "2",
    target_in_flight_per_replica: "4",
  });
  // The dashboard answers a form with problems 422, re-rendered with the message beside the field.
  expect(res.status).toBe(422);
  expect(await res.text()).toContain("must not be more than max_replicas");
});

test("the deployment's page says it is scaled to zero and lists the decisions with their reasons", async () => {
  const row = { id, status: "RUNNING" as const, replicas: 1 };
  await recordScaleDecision(
    t.app.db,
    row,
    2,
    "scaled up from 1 to 2: 12 in flight over 1 replica, target 4",
    new Date(),
  );
  await recordScaleDecision(
    t.app.db,
    { ...row, replicas: 2 },
    0,
    "scaled to zero: no requests for 30 s",
    new Date(),
  );
  const html = await page(`/deployments/${id}`);
  expect(html).toContain("Scaled to zero by its autoscaling policy");
  expect(html).toContain("replicas 1 → 2");
  expect(html).toContain("scaled up from 1 to 2: 12 in flight over 1 replica, target 4");
  expect(html).toContain("replicas 2 → 0");
});
