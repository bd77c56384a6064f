import { afterAll, beforeAll, expect, test } from "bun:test";
import { csrfCookie } from "#routes/dashboard/_shared/csrf.ts";
import { adminEmail, adminPassword, type Handler, type TestApp } from "../support/app.ts";
import { startGateway } from "../support/callers.ts";

let t: TestApp;
let handle: Handler;

beforeAll(async () => {
  ({ t, handle } = await startGateway("dashboard"));
}, 60_000);
afterAll(() => t.close());

const form = (fields: Record<string, string>, cookie?: string, headers: Record<string, string> = {}) =>
  handle(
    new Request("http://localhost/login", {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        ...(cookie ? { cookie: `${csrfCookie}=${cookie}` } : {}),
        ...headers,
      },
      body: new URLSearchParams(fields).toString(),
    }),
  );
const credentials = { email: adminEmail, password: adminPassword };

test("the sign-in page issues an httpOnly SameSite=Strict token cookie and puts the same token in the form and meta tag", async () => {
  const res = await handle(new Request("http://localhost/login"));
  const setCookie = res.headers.get("set-cookie") ?? "";
  expect(setCookie).toContain("HttpOnly");
  expect(setCookie).toContain("SameSite=Strict");
  const token = /llmp_csrf=([^;]+)/.exec(setCookie)?.[1] ?? "";
  expect(token.length).toBeGreaterThan(20);
  const html = await res.text();
  expect(html).toContain(`name="_csrf" value="${token}"`);
  expect(html).toContain(`<meta name="csrf-token" content="${token}"`);
  expect(html).toContain('src="/assets/dashboard.js"');
  // No inline style from htmx under the strict CSP.
  expect(html).toContain("includeIndicatorStyles&#34;:false");
});

test("a state-changing request without the token is 403 and signs nobody in", async () => {
  const res = await form(credentials);
  expect(res.status).toBe(403);
  expect(res.headers.get("set-cookie")).toBeNull();
  expect(res.headers.get("content-security-policy")).toContain("default-src 'self'");
});

test("a token that does not match the cookie is 403", async () => {
  expect((await form({ ...credentials, _csrf: "forged" }, "the-real-token")).status).toBe(403);
  expect((await form(credentials, "the-real-token", { "x-csrf-token": "forged" })).status).toBe(403);
  expect((await form({ ...credentials, _csrf: "the-real-token" })).status).toBe(403);
});

test("the matching token as a form field or as the htmx header is accepted", async () => {
  const field = await form({ ...credentials, _csrf: "the-real-token" }, "the-real-token");
  expect(field.status).toBe(303);
  const header = await form(credentials, "the-real-token", { "x-csrf-token": "the-real-token" });
  expect(header.status).toBe(303);
});

test("sign-out without the token is refused too", async () => {
  const res = await handle(new Request("http://localhost/logout", { method: "POST" }));
  expect(res.status).toBe(403);
});

test("the htmx configuration is a served file that adds the header", async () => {
  const res = await handle(new Request("http://localhost/assets/dashboard.js"));
  expect(res.status).toBe(200);
  expect(await res.text()).toContain("X-CSRF-Token");
});

test("a malformed cookie is treated as absent: the sign-in page, or 403, never 500", async () => {
  const broken = "%E0%A4%A";
  const page = await handle(
    new Request("http://localhost/", { headers: { cookie: `llmp_session=${broken}` } }),
  );
  expect(page.status).toBe(303);
  expect(page.headers.get("location")).toStartWith("/login");
  const both = `llmp_session=${broken}; ${csrfCookie}=${broken}`;
  const post = await handle(
    new Request("http://localhost/logout", {
      method: "POST",
      headers: { cookie: both, "x-csrf-token": broken },
    }),
  );
  expect(post.status).toBe(403);
  const login = await form({ ...credentials, _csrf: "t" }, `t; llmp_refresh=${broken}`);
  expect(login.status).toBe(303);
});
