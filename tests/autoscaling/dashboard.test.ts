// The dashboard: the deployment's policies page shows the autoscaling policy and saves it from its
// form (a bad one refused beside its field); the deployment's page says when it is scaled to zero and
// lists each decision with its replica counts and reason.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { csrfCookie } from "../../routes/dashboard/_shared/csrf.ts";
import { recordScaleDecision } from "../../services/orchestration/state-machine.ts";
import { defaultOrgId, insertDeployment } from "../management/support.ts";
import {
  adminEmail,
  adminPassword,
  call,
  gatewayHandler,
  type Handler,
  loginAsAdmin,
  startTestApp,
  type TestApp,
} from "../support/app.ts";

let t: TestApp;
let dashboard: Handler;
let filtration: Handler;
let cookie: string;
let id: string;
const csrf = "test-csrf-token";

beforeAll(async () => {
  t = await startTestApp();
  dashboard = (await gatewayHandler(t.app, "dashboard")).handle;
  filtration = (await gatewayHandler(t.app, "filtration")).handle;
  id = (await insertDeployment(t.app.db, await defaultOrgId(t.app.db), { name: "elastic" })).id;
  const login = await post("/login", { email: adminEmail, password: adminPassword });
  expect(login.status).toBe(303);
  const session = login.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  cookie = `${csrfCookie}=${csrf}; ${session}`;
}, 60_000);
afterAll(() => t.close());

function post(path: string, fields: Record<string, string>) {
  return dashboard(
    new Request(`http://localhost${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        cookie: cookie ?? `${csrfCookie}=${csrf}`,
      },
      body: new URLSearchParams({ ...fields, _csrf: csrf }).toString(),
    }),
  );
}
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
  const read = await call(filtration, "GET", `/management/config/autoscaling?deployment_id=${id}`, { token });
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
