// Every GET page of the dashboard's route table, signed in as an administrator: answered with the
// strict CSP and security headers, and without anything that CSP would refuse (an inline script, an
// on* handler, a style attribute), so a page cannot half-work in a browser. New pages are covered by
// being files under routes/dashboard/.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { dashboardSecurityHeaders } from "#routes/dashboard/_gateway.ts";
import { loadRoutes } from "#server/http/loader.ts";
import type { Handler, TestApp } from "../support/app.ts";
import { startGateway } from "../support/callers.ts";
import { signInToDashboard } from "../support/dashboard.ts";

let t: TestApp;
let handle: Handler;
let cookie: string;

beforeAll(async () => {
  ({ t, handle } = await startGateway("dashboard"));
  let session: string;
  ({ session, cookie } = await signInToDashboard(handle));
  expect(session).toContain("llmp_session=");
}, 60_000);
afterAll(() => t.close());

const unknownId = "00000000-0000-4000-8000-000000000000";

test("every GET page carries the security headers and nothing the CSP would refuse", async () => {
  const pages = (await loadRoutes("dashboard")).filter(
    (r) => r.method === "GET" && !r.path.startsWith("/assets"),
  );
  expect(pages.length).toBeGreaterThan(2);
  for (const r of pages) {
    const path = r.path.replace(/:\w+/g, unknownId);
    const res = await handle(new Request(`http://localhost${path}`, { headers: { cookie } }));
    for (const [name, value] of Object.entries(dashboardSecurityHeaders)) {
      expect({ path, [name]: res.headers.get(name) }).toEqual({ path, [name]: value });
    }
    const html = await res.text();
    expect({ path, inlineScript: /<script(?![^>]*\bsrc=)[^>]*>/i.test(html) }).toEqual({
      path,
      inlineScript: false,
    });
    expect({ path, handler: /<[^>]+\son[a-z]+=/i.test(html) }).toEqual({ path, handler: false });
    expect({ path, style: /<[^>]+\sstyle=/i.test(html) || /<style/i.test(html) }).toEqual({
      path,
      style: false,
    });
    // A page about an id that does not exist is a clean 404, never a crash.
    expect({ path, status: res.status < 500 }).toEqual({ path, status: true });
  }
}, 60_000);
