// The routing policy in the dashboard: shown and edited on the deployment's policies page (one name a
// line, in order; an unknown name refused beside the field), and the deployment that served a request
// in the inference logs page when a fallback answered.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { GET as policyRoute } from "#routes/filtration/management/config/[policy_type].ts";
import { writeInferenceLogs } from "#services/inference-logs/logs.ts";
import { insertDeployment } from "../management/support.ts";
import { call, gatewayHandler, type Handler, loginAsAdmin, type TestApp } from "../support/app.ts";
import { startGateway } from "../support/callers.ts";
import { postForm, signInToDashboard } from "../support/dashboard.ts";

let t: TestApp;
let handle: Handler;
let filtration: Handler;
let cookie: string;
let csrf: string;
let orgId: string;
let token: string;

beforeAll(async () => {
  ({ t, handle } = await startGateway("dashboard"));
  filtration = (await gatewayHandler(t.app, "filtration")).handle;
  ({ csrf, cookie } = await signInToDashboard(handle));
  const admin = await loginAsAdmin(filtration);
  orgId = admin.user.org_id;
  token = admin.access_token;
}, 60_000);
afterAll(() => t.close());

const page = (path: string) => handle(new Request(`http://localhost${path}`, { headers: { cookie } }));
const submit = (path: string, fields: Record<string, string>) =>
  postForm(handle, path, { ...fields, _csrf: csrf }, cookie);

/** The routing card of the page: from its section's opening tag to the next section. */
const routingCard = (html: string) => {
  const start = html.indexOf('id="policy-routing"');
  expect(start).toBeGreaterThan(-1);
  return html.slice(start, html.indexOf("</section>", start));
};

test("the policies page shows the routing policy and saves the fallbacks typed in, in order", async () => {
  const asked = await insertDeployment(t.app.db, orgId, { name: "asked-model" });
  await insertDeployment(t.app.db, orgId, { name: "backup-a" });
  await insertDeployment(t.app.db, orgId, { name: "backup-b" });
  const path = `/deployments/${asked.id}/policies`;

  const before = routingCard(await (await page(path)).text());
  expect(before).toContain('data-source="default"');
  expect(before).toContain('name="fallbacks"');
  expect(before).toContain("backup-a, backup-b");

  const refused = await submit(`${path}/routing`, { fallbacks: "backup-b\nno-such-model" });
  expect(refused.status).toBe(422);
  const refusedCard = routingCard(await refused.text());
  expect(refusedCard).toContain("no deployment named no-such-model in this organization");
  expect(refusedCard).toContain('aria-invalid="true"');

  const saved = await submit(`${path}/routing`, { fallbacks: " backup-b \n\nbackup-a\n" });
  expect(saved.status).toBe(303);
  const policy = await call<typeof policyRoute>(
    filtration,
    "GET",
    `/management/config/routing?deployment_id=${asked.id}`,
    {
      token,
    },
  );
  expect(policy.body.config).toEqual({ fallbacks: ["backup-b", "backup-a"] });

  const after = routingCard(await (await page(`${path}?saved=routing`)).text());
  expect(after).toContain('data-source="deployment"');
  expect(after).toContain("backup-b\nbackup-a</textarea>");
});

test("the routing card turns prefix affinity off and shows it off; on again leaves the field out", async () => {
  const asked = await insertDeployment(t.app.db, orgId, { name: "affinity-model" });
  const path = `/deployments/${asked.id}/policies`;
  expect(routingCard(await (await page(path)).text())).toContain('name="prefix_affinity"');
  const read = async () =>
    (
      await call<typeof policyRoute>(
        filtration,
        "GET",
        `/management/config/routing?deployment_id=${asked.id}`,
        {
          token,
        },
      )
    ).body.config;

  expect((await submit(`${path}/routing`, { fallbacks: "", prefix_affinity: "off" })).status).toBe(303);
  expect(await read()).toEqual({ fallbacks: [], prefix_affinity: false });
  const off = routingCard(await (await page(`${path}?saved=routing`)).text());
  expect(off).toMatch(/<option value="off"[^>]*selected/);

  expect((await submit(`${path}/routing`, { fallbacks: "", prefix_affinity: "on" })).status).toBe(303);
  expect(await read()).toEqual({ fallbacks: [] });
});

test("the inference logs page says which deployment served a request a fallback answered", async () => {
  const asked = await insertDeployment(t.app.db, orgId, { name: "logged-asked" });
  const backup = await insertDeployment(t.app.db, orgId, { name: "logged-backup" });
  await writeInferenceLogs(t.app, [
    {
      request_id: "req-fallback",
      org_id: orgId,
      deployment_id: asked.id,
      model: "logged-asked",
      status: 200,
      served_by_deployment_id: backup.id,
      served_by: "logged-backup",
    },
    {
      request_id: "req-itself",
      org_id: orgId,
      deployment_id: backup.id,
      model: "logged-backup",
      status: 200,
      served_by_deployment_id: backup.id,
      served_by: "logged-backup",
    },
  ]);
  const html = await (await page("/logs")).text();
  expect(html.match(/served by logged-backup/g)).toHaveLength(1);
});
