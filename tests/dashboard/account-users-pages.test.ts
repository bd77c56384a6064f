// Two-factor sign-in and the users page in Chromium: set-up with the QR code and a code from oathtool
// (an implementation independent of ours), then a sign-in that needs the code in a second step; a
// viewer added in the users page sees no button that changes anything and the server refuses the
// request anyway; a role's permissions as checkboxes.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { adminEmail, adminPassword } from "../support/app.ts";
import { totpCode } from "../support/totp-codes.ts";
import { type BrowserPlatform, haveChromium, newPage, shot, signIn, startSignedIn } from "./browser.ts";

let bp: BrowserPlatform;
let page: Page;

beforeAll(async () => {
  if (!haveChromium) return;
  ({ bp, page } = await startSignedIn({ dialogs: "accept" }));
}, 90_000);
afterAll(async () => {
  await bp?.close();
});

const now = () => Math.floor(Date.now() / 1000);

test.skipIf(!haveChromium)(
  "two-factor: set up with the QR code and an oathtool code, then sign-in asks for a code in a second step",
  async () => {
    await page.goto("/account");
    await page.getByRole("button", { name: "Set up two-factor sign-in" }).click();
    const qr = await page.getByAltText("QR code of the two-factor secret").getAttribute("src");
    expect(qr).toStartWith("data:image/svg+xml;base64,");
    expect(Buffer.from((qr as string).split(",")[1] as string, "base64").toString()).toContain("<svg");
    const secret = ((await page.locator("#totp-secret").textContent()) ?? "").trim();
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await shot(page, "account-totp-setup");
    await page.getByLabel("The code your app shows now").fill("000000");
    await page.getByRole("button", { name: "Verify and turn on" }).click();
    expect(await page.locator("#f-code-error").textContent()).toContain("not a current code");
    expect(await page.getByAltText("QR code of the two-factor secret").count()).toBe(1);
    // The previous 30 s step: still accepted, and the sign-in below can use the current one.
    await page.getByLabel("The code your app shows now").fill(totpCode(secret, now() - 30));
    await page.getByRole("button", { name: "Verify and turn on" }).click();
    await page.waitForURL("**/account?done=on");
    expect(await page.getByText("Two-factor sign-in is on").count()).toBe(1);
    await shot(page, "account-totp-on");

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("E-mail").fill(adminEmail);
    await page.getByLabel("Password").fill(adminPassword);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL("**/login/verify**");
    expect(await page.getByLabel("Password").count()).toBe(0);
    await shot(page, "sign-in-second-step");
    await page.getByLabel("Authenticator code").fill("123456");
    await page.getByRole("button", { name: "Verify" }).click();
    expect(await page.locator(".error").textContent()).toContain("wrong, expired or already used");
    await page.getByLabel("Authenticator code").fill(totpCode(secret, now()));
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForURL((url) => url.pathname === "/");
    expect(await page.locator("header .user").textContent()).toContain(adminEmail);

    await page.goto("/account");
    await page.getByLabel("A current code from your authenticator").fill(totpCode(secret, now() + 30));
    await page.getByRole("button", { name: "Turn off" }).click();
    await page.waitForURL("**/account?done=off");
    expect(await page.getByText("Two-factor sign-in is off.").count()).toBe(1);
  },
  60_000,
);

test.skipIf(!haveChromium)(
  "a viewer added in the users page sees no action, and the server refuses one sent anyway",
  async () => {
    await page.goto("/users");
    await page.getByLabel("E-mail").fill("reader@example.com");
    await page.getByLabel("Role", { exact: true }).selectOption("viewer");
    await page.getByLabel("First password").fill("short");
    await page.getByRole("button", { name: "Add user" }).click();
    expect(await page.locator("#f-password-error").textContent()).toBeTruthy();
    expect(await page.getByLabel("E-mail").inputValue()).toBe("reader@example.com");
    await page.getByLabel("First password").fill("a reader's long password");
    await page.getByRole("button", { name: "Add user" }).click();
    await page.waitForURL("**/users");
    expect(await page.locator("tr", { hasText: "reader@example.com" }).count()).toBe(1);
    await shot(page, "users");

    const viewer = (await newPage(bp)).page;
    await signIn(viewer, "reader@example.com", "a reader's long password");
    expect(await viewer.getByRole("link", { name: "Audit log" }).count()).toBe(0);
    for (const path of ["/api-keys", "/pools", "/deployments", "/users", "/models", "/providers"]) {
      await viewer.goto(path);
      expect({ path, forms: await viewer.locator("main form[method=post]").count() }).toEqual({
        path,
        forms: 0,
      });
    }
    await shot(viewer, "viewer-users");
    const refused = await viewer.evaluate(async () => {
      const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute("content") ?? "";
      const res = await fetch("/api-keys", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ _csrf: csrf, name: "sneaky" }).toString(),
      });
      return res.status;
    });
    expect(refused).toBe(403);
  },
  60_000,
);

test.skipIf(!haveChromium)(
  "a role created with ticked permissions keeps them",
  async () => {
    await page.goto("/users");
    const form = page.locator("form[action='/roles']");
    await form.getByLabel("Name").fill("auditors");
    await form.getByLabel(/^audit:read/).check();
    await form.getByLabel(/^logs:read/).check();
    await form.getByRole("button", { name: "Create role" }).click();
    await page.waitForURL("**/users");
    const card = page.locator("#role-auditors");
    expect(await card.getByLabel(/^audit:read/).isChecked()).toBe(true);
    expect(await card.getByLabel(/^logs:read/).isChecked()).toBe(true);
    expect(await card.getByLabel(/^pools:write/).isChecked()).toBe(false);
    await shot(page, "roles");
  },
  30_000,
);
