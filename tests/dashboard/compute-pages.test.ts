// Pools, the model registry and provider configuration in Chromium: a pool created in the form turns
// Active without a reload and is deleted after a confirmation; a model version is registered and
// deleted; a provider credential is saved and shown masked only. Bad fields are refused beside
// themselves with nothing created.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { writeTinyGguf } from "#scripts/make-tiny-gguf.ts";
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

const markWindow = () => page.evaluate(() => Object.assign(window, { __sameDocument: true }));
const sameDocument = () =>
  page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument === true);

test.skipIf(!haveChromium)(
  "a pool: a bad cost is refused beside its field; created, it turns Active without a reload; deleted after confirming",
  async () => {
    await page.goto("/pools");
    expect(await page.getByText("No pools yet").count()).toBe(1);
    await shot(page, "pools-empty");

    await page.getByLabel("Name").fill("gpu-lab");
    await page.getByLabel(/Cost ceiling/).fill("-1");
    await page.getByLabel(/Size/).fill("0");
    await page.getByRole("button", { name: "Create pool" }).click();
    expect(await page.locator("#f-max_cost_per_hour-error").textContent()).toContain("At least 0");
    expect(await page.locator("#f-size-error").textContent()).toContain("At least 1");
    expect(await page.getByLabel("Name").inputValue()).toBe("gpu-lab");
    expect(await page.getByText("No pools yet").count()).toBe(1);
    await shot(page, "pools-form-error");

    await page.getByLabel(/Cost ceiling/).fill("2.5");
    await page.getByLabel(/Size/).fill("2");
    await page.getByRole("button", { name: "Create pool" }).click();
    expect((await page.locator("#node-token").textContent())?.trim()).toMatch(/^nt_/);
    await markWindow();
    const row = page.locator("#pool-rows tr", { hasText: "gpu-lab" });
    await row.getByText("Active").waitFor({ timeout: 15_000 });
    expect(await sameDocument()).toBe(true);
    expect(await row.textContent()).toContain("$2.50/h");
    await shot(page, "pools-active");

    await row.getByRole("link", { name: "gpu-lab" }).click();
    await page.getByRole("heading", { name: "Pool gpu-lab" }).waitFor();
    expect(await page.getByText("No node has reported yet").count()).toBe(1);
    expect(await page.getByText("2 replicas at most").count()).toBe(1);
    await shot(page, "pool-detail");
    page.once("dialog", (dialog) => dialog.accept());
    await page.getByRole("button", { name: "Delete pool" }).click();
    await page.waitForURL("**/pools");
    await page
      .locator("#pool-rows")
      .waitFor({ state: "detached", timeout: 15_000 })
      .catch(() => {});
    await page.reload();
    expect(await page.locator("#pool-rows tr", { hasText: "gpu-lab" }).getByText("Active").count()).toBe(0);
  },
  90_000,
);

test.skipIf(!haveChromium)(
  "a model version: a bad name refused, then registered, listed with its version, deleted after confirming",
  async () => {
    const path = join(bp.dataDir, "models", "tiny.gguf");
    writeTinyGguf(path);
    await page.goto("/models");
    await shot(page, "models-empty");
    await page.getByLabel("Model name").fill("bad name!");
    await page.getByLabel(/Source/).fill(path);
    await page.getByRole("button", { name: "Register" }).click();
    expect(await page.locator("#f-model_name-error").textContent()).toContain("letters, digits");
    await page.getByLabel("Model name").fill("tiny-chat");
    await page.getByLabel("Version").fill("v1");
    await page.getByRole("button", { name: "Register" }).click();
    await page.waitForURL("**/models");
    const row = page.locator("tr", { hasText: "v1" });
    expect(await row.textContent()).toContain(path);
    expect(await page.getByRole("heading", { name: "tiny-chat" }).count()).toBe(1);
    await shot(page, "models-registered");
    page.once("dialog", (dialog) => dialog.accept());
    await row.getByRole("button", { name: "Delete" }).click();
    await page.waitForURL("**/models");
    expect(await page.getByText("No models registered yet").count()).toBe(1);
  },
  60_000,
);

test.skipIf(!haveChromium)(
  "a provider credential is saved once and shown masked; it is never in the page again",
  async () => {
    const secret = "nos-live-key-0123456789abcdef";
    await page.goto("/providers");
    const card = page.locator("#provider-nosana");
    await card.getByLabel("API base URL").fill("ftp://files.example.com/");
    await card.getByLabel("API key").fill(secret);
    await card.getByRole("button", { name: "Save" }).click();
    expect(await page.locator("#f-nosana-setting_base_url-error").textContent()).toContain("http(s) URL");
    expect(await page.content()).not.toContain(secret);

    await page.locator("#provider-nosana").getByLabel("API base URL").fill("");
    await page.locator("#provider-nosana").getByLabel("API key").fill(secret);
    await page.locator("#provider-nosana").getByRole("button", { name: "Save" }).click();
    await page.waitForURL("**/providers?saved=nosana");
    const saved = page.locator("#provider-nosana");
    expect(await saved.textContent()).toContain("****cdef");
    expect(await saved.getByText("configured", { exact: true }).count()).toBe(1);
    expect(await page.content()).not.toContain(secret);
    await shot(page, "providers-saved");
  },
  60_000,
);
