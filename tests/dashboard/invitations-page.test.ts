// The Account page lists the signed-in user's invitations to other organizations with Accept and
// Decline buttons (the same services as /auth/invitations).
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { GET as pendingInvitations } from "#routes/filtration/auth/invitations/index.ts";
import type { GET as myOrganizations } from "#routes/filtration/auth/organizations.ts";
import {
  adminPassword,
  call,
  createOrganization,
  createUser,
  gatewayHandler,
  type Handler,
  loginAsAdmin,
  type TestApp,
} from "../support/app.ts";
import { startGateway } from "../support/callers.ts";
import { csrfOf, postForm, sessionOf } from "../support/dashboard.ts";

let t: TestApp;
let dashboard: Handler;
let api: Handler;
let csrf: string;
let admin: string;
let orgB: string;

beforeAll(async () => {
  ({ t, handle: dashboard } = await startGateway("dashboard"));
  api = (await gatewayHandler(t.app, "filtration")).handle;
  admin = (await loginAsAdmin(api)).access_token;
  orgB = await createOrganization(t, "org-b");
  csrf = csrfOf(await dashboard(new Request("http://localhost/login")));
}, 60_000);
afterAll(() => t.close());

const post = (path: string, cookie: string, fields: Record<string, string> = {}) =>
  postForm(dashboard, path, { _csrf: csrf, ...fields }, `llmp_csrf=${csrf}; ${cookie}`);
const page = async (cookie: string) =>
  (
    await dashboard(
      new Request("http://localhost/account", { headers: { cookie: `llmp_csrf=${csrf}; ${cookie}` } }),
    )
  ).text();

async function invitedAndSignedIn(email: string) {
  const b = await createUser(t, api, email, "viewer", orgB);
  await call(api, "POST", "/admin/users", {
    token: admin,
    body: { email, password: "a long first password", role: "developer" },
  });
  const cookie = sessionOf(await post("/login", "", { email, password: adminPassword }));
  return { b, cookie };
}

test("accepting from the Account page makes the membership", async () => {
  const { b, cookie } = await invitedAndSignedIn("dash-accept@example.com");
  const html = await page(cookie);
  const id = /action="\/account\/invitations\/([0-9a-f-]+)\/accept"/.exec(html)?.[1];
  expect(id).toBeString();
  expect(html).toContain("default");
  expect(html).toContain('action="/account/invitations/');
  const accepted = await post(`/account/invitations/${id}/accept`, cookie);
  expect(accepted.status).toBe(303);
  expect(accepted.headers.get("location")).toBe("/account?done=joined");
  const orgs = await call<typeof myOrganizations>(api, "GET", "/auth/organizations", {
    token: b.access_token,
  });
  expect(orgs.body.organizations.map((o: { role: string }) => o.role).sort()).toEqual([
    "developer",
    "viewer",
  ]);
  expect(await page(cookie)).not.toContain('action="/account/invitations/');
  const again = await post(`/account/invitations/${id}/accept`, cookie);
  expect(again.headers.get("location")).toBe("/account?done=gone");
}, 30_000);

test("declining from the Account page removes it", async () => {
  const { b, cookie } = await invitedAndSignedIn("dash-decline@example.com");
  const id = /action="\/account\/invitations\/([0-9a-f-]+)\/decline"/.exec(await page(cookie))?.[1];
  const declined = await post(`/account/invitations/${id}/decline`, cookie);
  expect(declined.headers.get("location")).toBe("/account?done=declined");
  expect(
    (await call<typeof pendingInvitations>(api, "GET", "/auth/invitations", { token: b.access_token })).body
      .invitations,
  ).toEqual([]);
  const orgs = await call<typeof myOrganizations>(api, "GET", "/auth/organizations", {
    token: b.access_token,
  });
  expect(orgs.body.organizations).toHaveLength(1);
}, 30_000);
