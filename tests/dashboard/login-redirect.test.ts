// After sign-in the dashboard sends the browser back to `next`: a path of its own, never another site
// (issue 33, finding 5). Browsers read "\" as "/" and drop tabs, so "/\evil.example" and
// "/%09/evil.example" (a tab once decoded) would land on evil.example; they, "//evil" and absolute URLs
// fall back to "/".
import { afterAll, beforeAll, expect, test } from "bun:test";
import { csrfCookie } from "#routes/dashboard/_shared/csrf.ts";
import { adminEmail, adminPassword, type Handler, type TestApp } from "../support/app.ts";
import { startGateway } from "../support/callers.ts";
import { csrfOf, postForm } from "../support/dashboard.ts";

let t: TestApp;
let dashboard: Handler;
beforeAll(async () => {
  ({ t, handle: dashboard } = await startGateway("dashboard"));
}, 60_000);
afterAll(() => t.close());

async function signInWith(next: string): Promise<string | null> {
  const csrf = csrfOf(await dashboard(new Request("http://localhost/login")));
  const res = await postForm(
    dashboard,
    "/login",
    { email: adminEmail, password: adminPassword, _csrf: csrf, next },
    `${csrfCookie}=${csrf}`,
  );
  expect(res.status).toBe(303);
  return res.headers.get("location");
}

test.each([
  "/\\evil.example",
  "/\t/evil.example",
  decodeURIComponent("/%09/evil.example"),
  "/\n/evil.example",
  "//evil.example",
  "/\\/evil.example",
  "https://evil.example/",
  "http:evil.example",
  "javascript:alert(1)",
  "evil.example",
])(
  "next=%j is refused: back to /",
  async (next) => {
    expect(await signInWith(next)).toBe("/");
  },
  30_000,
);

test.each([
  ["/api-keys?from=test", "/api-keys?from=test"],
  ["/deployments#top", "/deployments#top"],
  ["/", "/"],
])(
  "next=%j, a path of the dashboard, is kept",
  async (next, location) => {
    expect(await signInWith(next)).toBe(location);
  },
  30_000,
);

test("the sign-in page carries only a safe next in its form", async () => {
  const html = await (await dashboard(new Request("http://localhost/login?next=%2F%5Cevil.example"))).text();
  expect(html).toContain('name="next" value="/"');
  expect(html).not.toContain("evil.example");
});
