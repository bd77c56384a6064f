// Deployments in Chromium, the typical workflow's middle: a local pool and the tiny model registered
// in their pages, then the deploy form (the name checked as you type), the deployment's page where
// the badge turns RUNNING and log lines arrive without a reload, terminate and delete after
// confirmations. Bad forms are refused beside their fields; a name with <script> stays text.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { writeTinyGguf } from "#scripts/make-tiny-gguf.ts";
import { type BrowserPlatform, haveChromium, shot, startSignedIn } from "./browser.ts";

let bp: BrowserPlatform;
let page: Page;
const dialogs: string[] = [];

beforeAll(async () => {
  if (!haveChromium) return;
  ({ bp, page } = await startSignedIn({ dialogs }));
  await page.goto("/pools");
  await page.getByLabel("Name").fill("this-machine");
  await page.getByRole("button", { name: "Create pool" }).click();
  await page
    .locator("#pool-rows tr", { hasText: "this-machine" })
    .getByText("Active")
    .waitFor({ timeout: 15_000 });
  const path = join(bp.dataDir, "models", "tiny.gguf");
  writeTinyGguf(path);
  await page.goto("/models");
  await page.getByLabel("Model name").fill("tiny");
  await page.getByLabel("Version").fill("v1");
  await page.getByLabel(/Source/).fill(path);
  await page.getByRole("button", { name: "Register" }).click();
  await page.waitForURL("**/models");
}, 120_000);
afterAll(async () => {
  await bp?.close();
});

const rowCount = () => page.locator("#deployment-rows tr").count();

test.skipIf(!haveChromium)(
  "bad forms: a name with <script> and a missing pool are refused beside their fields, nothing created",
  async () => {
    await page.goto("/deployments");
    expect(await page.getByText("No deployments yet").count()).toBe(1);
    await shot(page, "deployments-empty");
    const nasty = "<script>alert(1)</script>";
    await page.getByLabel("Deployment name").fill(nasty);
    await page.locator("#name-check", { hasText: "letters, digits" }).waitFor();
    await page.getByRole("button", { name: "Deploy" }).click();
    expect(await page.locator("#f-pool_id-error").textContent()).toBe("Required.");
    expect(await page.getByLabel("Deployment name").inputValue()).toBe(nasty);
    await page.getByLabel("Pool").selectOption({ label: "this-machine (local, Active)" });
    await page.getByLabel("Model from the registry").selectOption("registry://tiny/v1");
    await page.getByRole("button", { name: "Deploy" }).click();
    expect(await page.locator("#f-model_name-error").textContent()).toContain("letters, digits");
    expect(await page.getByLabel("Deployment name").inputValue()).toBe(nasty);
    expect(await page.content()).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(dialogs.filter((d) => d === "1")).toEqual([]);
    await shot(page, "deployments-form-errors");
    await page.goto("/deployments");
    expect(await page.getByText("No deployments yet").count()).toBe(1);
  },
  60_000,
);

test.skipIf(!haveChromium)(
  "deploy from the form: the page's badge turns RUNNING and log lines arrive, without a reload",
  async () => {
    await page.goto("/deployments");
    await page.getByLabel("Deployment name").fill("tiny-chat");
    await page.locator("#name-check", { hasText: "available" }).waitFor();
    await page.getByLabel("Pool").selectOption({ label: "this-machine (local, Active)" });
    await page.getByLabel("Model from the registry").selectOption("registry://tiny/v1");
    await shot(page, "deployments-form");
    await page.getByRole("button", { name: "Deploy" }).click();
    await page.waitForURL(/\/deployments\/[0-9a-f-]{36}$/);
    await page.evaluate(() => Object.assign(window, { __sameDocument: true }));
    await shot(page, "deployment-deploying");
    await page
      .locator("#deployment-live .badge", { hasText: "RUNNING" })
      .first()
      .waitFor({ timeout: 60_000 });
    await page.locator("#deployment-log", { hasText: /\S/ }).waitFor({ timeout: 20_000 });
    expect(
      await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument),
    ).toBe(true);
    expect(await page.locator("#deployment-log-state").textContent()).toBe("live");
    const transitions = await page.locator("#deployment-live table").last().textContent();
    expect(transitions).toContain("DEPLOYING");
    expect(transitions).toContain("RUNNING");
    expect(await page.locator("#deployment-live").textContent()).toContain("http://");
    await shot(page, "deployment-running");

    await page.goto("/deployments");
    expect(await rowCount()).toBe(1);
    expect(await page.locator("#deployment-rows").textContent()).toContain("RUNNING");
    await page.getByLabel("Deployment name").fill("tiny-chat");
    await page.locator("#name-check", { hasText: "taken" }).waitFor();
    await shot(page, "deployments-list");
  },
  120_000,
);

test.skipIf(!haveChromium)(
  "terminate and delete are offered only where the state allows them, each after a confirmation",
  async () => {
    await page.goto("/deployments");
    await page.getByRole("link", { name: "tiny-chat" }).click();
    expect(await page.getByRole("button", { name: "Delete" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Start" }).count()).toBe(0);
    await page.getByRole("button", { name: "Terminate" }).click();
    expect(dialogs.at(-1)).toContain("Terminate tiny-chat?");
    await page
      .locator("#deployment-live .badge", { hasText: "STOPPED" })
      .first()
      .waitFor({ timeout: 30_000 });
    expect(await page.getByRole("button", { name: "Terminate" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Start" }).count()).toBe(1);
    await shot(page, "deployment-stopped");
    await page.getByRole("button", { name: "Delete" }).click();
    expect(dialogs.at(-1)).toContain("Delete tiny-chat for good?");
    await page.waitForURL("**/deployments");
    expect(await page.getByText("No deployments yet").count()).toBe(1);
  },
  60_000,
);
