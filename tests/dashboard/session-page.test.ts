// Sessions as a person meets them in Chromium: a session that is gone sends the browser to sign-in
// and back to the page it asked for afterwards; a state-changing request without the CSRF token is
// refused even with a valid session; the header's organization switcher moves the session.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import { adminEmail, adminPassword } from "../support/app.ts";
import { type BrowserPlatform, haveChromium, shot, startSignedIn } from "./browser.ts";

let bp: BrowserPlatform;
let page: Page;
let context: BrowserContext;

beforeAll(async () => {
  if (!haveChromium) return;
  ({ bp, page, context } = await startSignedIn());
}, 90_000);
afterAll(async () => {
  await bp?.close();
});

test.skipIf(!haveChromium)(
  "an expired session goes to sign-in and returns to the page afterwards",
  async () => {
    await page.goto("/api-keys");
    const kept = (await context.cookies()).filter((c) => c.name === "llmp_csrf");
    await context.clearCookies();
    await context.addCookies(kept);
    await page.goto("/api-keys?from=test");
    expect(new URL(page.url()).pathname).toBe("/login");
    expect(new URL(page.url()).searchParams.get("next")).toBe("/api-keys?from=test");
    await shot(page, "sign-in-after-expiry");
    await page.getByLabel("E-mail").fill(adminEmail);
    await page.getByLabel("Password").fill(adminPassword);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL("**/api-keys?from=test");
    expect(await page.getByRole("heading", { name: "API keys" }).count()).toBe(1);
  },
  60_000,
);

test.skipIf(!haveChromium)(
  "a form posted without the CSRF token is 403 and changes nothing",
  async () => {
    await page.goto("/api-keys");
    const result = await page.evaluate(async () => {
      const res = await fetch("/api-keys", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "name=forged",
      });
      return { status: res.status, text: await res.text() };
    });
    expect(result.status).toBe(403);
    expect(result.text).toContain("CSRF");
    await page.reload();
    expect(await page.getByText("forged").count()).toBe(0);
  },
  30_000,
);
