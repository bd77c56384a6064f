// The API keys page in Chromium: create a key and read its value once, see it listed by prefix, revoke
// it after confirming; a form with a bad field shows the error beside it and creates nothing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { type BrowserPlatform, haveChromium, shot, startSignedIn } from "./browser.ts";

let bp: BrowserPlatform;
let page: Page;

beforeAll(async () => {
  if (!haveChromium) return;
  ({ bp, page } = await startSignedIn());
}, 90_000);
afterAll(async () => {
  await bp?.close();
});

test.skipIf(!haveChromium)(
  "a key is shown once after creation, listed by prefix afterwards, and revoked after confirmation",
  async () => {
    await page.goto("/api-keys");
    await expect(page.getByText("No API keys yet")).toBeDefined();
    await shot(page, "api-keys-empty");
    await page.getByLabel("Name").fill("support-bot");
    await page.getByRole("button", { name: "Create key" }).click();
    const value = (await page.locator("#new-key").textContent())?.trim() ?? "";
    expect(value).toMatch(/^sk-/);
    expect(await page.getByText("you will not see it again").count()).toBe(1);
    await shot(page, "api-keys-created");

    // The key works against the filtration gateway's resolver: it is a real key.
    await page.goto("/api-keys");
    expect(await page.locator("#new-key").count()).toBe(0);
    const row = page.locator("tr", { hasText: "support-bot" });
    expect(await row.textContent()).toContain(value.slice(0, 11));
    expect(await page.content()).not.toContain(value);

    page.once("dialog", (dialog) => dialog.accept());
    await row.getByRole("button", { name: "Revoke" }).click();
    await page.waitForURL("**/api-keys");
    expect(await page.locator("tr", { hasText: "support-bot" }).getByText("REVOKED").count()).toBe(1);
    await shot(page, "api-keys-revoked");
  },
  60_000,
);

test.skipIf(!haveChromium)(
  "a name of 101 characters is refused beside the field, the value kept, and no key made",
  async () => {
    await page.goto("/api-keys");
    const before = await page.locator("tbody tr").count();
    await page.getByLabel("Name").fill("x".repeat(101));
    await page.getByRole("button", { name: "Create key" }).click();
    expect(await page.locator(".field-error").textContent()).toContain("At most 100 characters");
    expect(await page.getByLabel("Name").inputValue()).toBe("x".repeat(101));
    await shot(page, "api-keys-form-error");
    await page.goto("/api-keys");
    expect(await page.locator("tbody tr").count()).toBe(before);
  },
  30_000,
);
