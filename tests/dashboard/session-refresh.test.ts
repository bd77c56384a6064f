import { afterAll, beforeAll, expect, test } from "bun:test";
import { gatewayHandler, type Handler, loginAsAdmin, type TestApp } from "../support/app.ts";
import { startGateway } from "../support/callers.ts";

let t: TestApp;
let dashboard: Handler;
let api: Handler;

beforeAll(async () => {
  ({ t, handle: dashboard } = await startGateway("dashboard"));
  api = (await gatewayHandler(t.app, "filtration")).handle;
}, 60_000);
afterAll(() => t.close());

const page = (cookie: string) => dashboard(new Request("http://localhost/", { headers: { cookie } }));

test("an expired or missing access cookie is refreshed silently with the refresh cookie", async () => {
  const session = await loginAsAdmin(api);
  const res = await page(`llmp_session=expired.or.garbage; llmp_refresh=${session.refresh_token}`);
  expect(res.status).toBe(200);
  expect(await res.text()).toContain("Overview");
  const cookies = res.headers.getSetCookie();
  const renewed = cookies.find((c) => c.startsWith("llmp_session="));
  expect(renewed).toContain("HttpOnly");
  expect(renewed).toContain("SameSite=Strict");
  expect(cookies.some((c) => c.startsWith("llmp_refresh=") && !c.includes(session.refresh_token))).toBe(true);
}, 30_000);

test("a valid access cookie is not refreshed", async () => {
  const session = await loginAsAdmin(api);
  const res = await page(
    `llmp_session=${session.access_token}; llmp_refresh=${session.refresh_token}; llmp_csrf=x`,
  );
  expect(res.status).toBe(200);
  expect(res.headers.getSetCookie()).toEqual([]);
}, 30_000);

test("a dead refresh cookie goes back to sign-in, returning to the page afterwards", async () => {
  const res = await dashboard(
    new Request("http://localhost/?tab=1", { headers: { cookie: "llmp_refresh=not-a-token" } }),
  );
  expect(res.status).toBe(303);
  expect(res.headers.get("location")).toBe(`/login?next=${encodeURIComponent("/?tab=1")}`);
}, 30_000);
