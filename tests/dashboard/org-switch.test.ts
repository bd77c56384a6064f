// The header's organization switcher: listed only for a user of several organizations, and a switch
// gives the browser a session in the other organization (the same service as POST /auth/switch-org).
import { afterAll, beforeAll, expect, test } from "bun:test";
import {
  addMembership,
  adminEmail,
  adminPassword,
  createOrganization,
  gatewayHandler,
  type Handler,
  loginAsAdmin,
  type TestApp,
} from "../support/app.ts";
import { startGateway } from "../support/callers.ts";
import { csrfOf, postForm, sessionOf } from "../support/dashboard.ts";

let t: TestApp;
let dashboard: Handler;
let csrf: string;

beforeAll(async () => {
  ({ t, handle: dashboard } = await startGateway("dashboard"));
  csrf = csrfOf(await dashboard(new Request("http://localhost/login")));
}, 60_000);
afterAll(() => t.close());

const post = (path: string, fields: Record<string, string>, cookie = "") =>
  postForm(dashboard, path, { _csrf: csrf, ...fields }, `llmp_csrf=${csrf}${cookie ? `; ${cookie}` : ""}`);
const get = (path: string, cookie: string) =>
  dashboard(new Request(`http://localhost${path}`, { headers: { cookie: `llmp_csrf=${csrf}; ${cookie}` } }));

test("one organization: its name, no switcher", async () => {
  const cookie = sessionOf(await post("/login", { email: adminEmail, password: adminPassword }));
  const html = await (await get("/", cookie)).text();
  expect(html).not.toContain('action="/switch-org"');
  expect(html).toContain('class="org">default<');
}, 30_000);

test("a second organization: the switcher lists both, and switching moves the session there", async () => {
  const api = (await gatewayHandler(t.app, "filtration")).handle;
  const admin = await loginAsAdmin(api);
  const other = await createOrganization(t, "research <lab>");
  await addMembership(t, admin.user.id, other, "viewer");
  const cookie = sessionOf(await post("/login", { email: adminEmail, password: adminPassword }));
  const before = await (await get("/api-keys", cookie)).text();
  expect(before).toContain('action="/switch-org"');
  expect(before).toContain("research &lt;lab&gt;");

  const switched = await post("/switch-org", { org_id: other, next: "/api-keys/whatever?x=1" }, cookie);
  expect(switched.status).toBe(303);
  expect(switched.headers.get("location")).toBe("/api-keys");
  const after = sessionOf(switched);
  const html = await (await get("/", after)).text();
  expect(html).toMatch(/<option value="[^"]+" selected[^>]*>research &lt;lab&gt;<\/option>/);
  expect(html).toContain("viewer");
}, 30_000);

test("an organization the user does not belong to is refused", async () => {
  const cookie = sessionOf(await post("/login", { email: adminEmail, password: adminPassword }));
  const stranger = await createOrganization(t, "elsewhere");
  const res = await post("/switch-org", { org_id: stranger, next: "/" }, cookie);
  expect(res.status).toBe(404);
}, 30_000);
