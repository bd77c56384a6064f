import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { dashboardSecurityHeaders } from "#routes/dashboard/_gateway.ts";
import { gatewayHandler, type Handler, type TestApp } from "../support/app.ts";
import { startGateway } from "../support/callers.ts";

let t: TestApp;
let handle: Handler;

beforeAll(async () => {
  ({ t, handle } = await startGateway("dashboard"));
}, 60_000);
afterAll(() => t.close());

// Pages, redirects (returned as Response objects), assets and problems all carry the headers.
describe.each([
  ["the sign-in page", "/login", 200],
  ["a page redirecting to sign-in", "/", 303],
  ["the htmx asset", "/assets/htmx.js", 200],
  ["an unknown path", "/nowhere", 404],
])("%s", (_label, path, status) => {
  test("carries the strict CSP and the security headers", async () => {
    const res = await handle(new Request(`http://localhost${path}`));
    expect(res.status).toBe(status);
    for (const [name, value] of Object.entries(dashboardSecurityHeaders)) {
      expect(res.headers.get(name)).toBe(value);
    }
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self';");
    expect(res.headers.get("content-security-policy")).not.toContain("unsafe-inline");
  });
});

test("the API gateways do not get the dashboard's CSP", async () => {
  const api = (await gatewayHandler(t.app, "orchestration")).handle;
  const res = await api(new Request("http://localhost/health"));
  expect(res.headers.get("content-security-policy")).toBeNull();
}, 30_000);
