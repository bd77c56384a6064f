// The specification's typical workflow, entirely in Chromium on the embedded defaults: sign in, create a
// pool and see it Active, register the tiny model, deploy it and see the badge turn RUNNING without a
// reload while log lines arrive, create an API key and read it once, call /v1/chat/completions with it
// through the official openai SDK, stream an answer in the playground, and find both calls in the
// inference logs. One screenshot per step.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import OpenAI from "openai";
import type { Page } from "playwright-core";
import { writeTinyGguf } from "#scripts/make-tiny-gguf.ts";
import { until } from "../support/wait.ts";
import {
  answerGrowth,
  type BrowserPlatform,
  haveChromium,
  newPage,
  shot,
  signIn,
  startBrowserPlatform,
  watchAnswerGrowth,
} from "./browser.ts";

let bp: BrowserPlatform;
let page: Page;

beforeAll(async () => {
  if (!haveChromium) return;
  bp = await startBrowserPlatform();
  page = (await newPage(bp)).page;
  page.on("dialog", (dialog) => void dialog.accept());
}, 90_000);
afterAll(async () => {
  // Ends the deployment's worker too (local workers are detached and outlive the platform by design).
  await bp?.close();
}, 60_000);

test.skipIf(!haveChromium)(
  "from an empty installation to a streamed answer, in the browser alone",
  async () => {
    // 1. Sign in.
    await page.goto("/");
    expect(new URL(page.url()).pathname).toBe("/login");
    await shot(page, "workflow-1-sign-in");
    await signIn(page);
    await shot(page, "workflow-2-overview");

    // 2. A pool on this machine, Active.
    await page.getByRole("link", { name: "Pools" }).click();
    await page.getByLabel("Name").fill("this-machine");
    await page.getByRole("button", { name: "Create pool" }).click();
    await page
      .locator("#pool-rows tr", { hasText: "this-machine" })
      .getByText("Active")
      .waitFor({ timeout: 20_000 });
    await shot(page, "workflow-3-pool-active");

    // 3. The tiny model in the registry.
    const modelPath = join(bp.dataDir, "models", "tiny.gguf");
    writeTinyGguf(modelPath, { eogBias: -30 });
    await page.getByRole("link", { name: "Models" }).click();
    await page.getByLabel("Model name").fill("tiny");
    await page.getByLabel("Version").fill("v1");
    await page.getByLabel(/Source/).fill(modelPath);
    await page.getByRole("button", { name: "Register" }).click();
    await page.getByRole("heading", { name: "tiny" }).waitFor();
    await shot(page, "workflow-4-model");

    // 4. Deploy; the badge turns RUNNING and log lines arrive on the same page.
    await page.getByRole("link", { name: "Deployments" }).click();
    await page.getByLabel("Deployment name").fill("tiny-chat");
    await page.locator("#name-check", { hasText: "available" }).waitFor();
    await page.getByLabel("Pool").selectOption({ label: "this-machine (local, Active)" });
    await page.getByLabel("Model from the registry").selectOption("registry://tiny/v1");
    await page.getByRole("button", { name: "Deploy" }).click();
    await page.waitForURL(/\/deployments\/[0-9a-f-]{36}$/);
    await page.evaluate(() => Object.assign(window, { __sameDocument: true }));
    await page
      .locator("#deployment-live .badge", { hasText: "RUNNING" })
      .first()
      .waitFor({ timeout: 60_000 });
    await page.locator("#deployment-log", { hasText: "ready" }).waitFor({ timeout: 20_000 });
    expect(
      await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument),
    ).toBe(true);
    await shot(page, "workflow-5-deployment-running");

    // 5. An API key, shown once.
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByLabel("Name").fill("my-app");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = ((await page.locator("#new-key").textContent()) ?? "").trim();
    expect(key).toStartWith("sk-");
    await shot(page, "workflow-6-api-key");
    await page.reload();
    expect(await page.content()).not.toContain(key);

    // 6. The key and the deployment name through the inference gateway, with the openai SDK.
    const client = new OpenAI({ baseURL: `${bp.inferenceUrl}/v1`, apiKey: key, maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: "tiny-chat",
      messages: [{ role: "user", content: "Hello from the SDK" }],
      max_tokens: 16,
    });
    expect(completion.object).toBe("chat.completion");
    expect(completion.model).toBe("tiny-chat");
    expect(completion.usage?.completion_tokens).toBeGreaterThan(0);

    // 7. The playground streams an answer into the page.
    await page.getByRole("link", { name: "Playground" }).click();
    await page.getByLabel("Deployment").selectOption("tiny-chat");
    await page.getByLabel("Max tokens").fill("32");
    await page.getByLabel("Message").fill("Hello from the browser");
    await watchAnswerGrowth(page);
    await page.getByRole("button", { name: "Send" }).click();
    await page.locator("[data-send]:not([disabled])").waitFor({ timeout: 30_000 });
    // Rendered piece by piece (counted per change, however the network grouped the pieces).
    expect((await answerGrowth(page)).length).toBeGreaterThanOrEqual(2);
    expect(((await page.locator("[data-answer]").first().textContent()) ?? "").length).toBeGreaterThan(0);
    await shot(page, "workflow-7-playground");

    // 8. Both calls in the inference logs: the key's and the dashboard's.
    await page.getByRole("link", { name: "Inference logs" }).click();
    // Written by the platform's log batcher, in another process: the page is reloaded until they show.
    await until(
      async () => {
        if ((await page.locator("tbody tr").count()) >= 2) return true;
        await page.reload();
        return false;
      },
      { what: "two rows in the inference logs", timeoutMs: 10_000, intervalMs: 500 },
    );
    const rows = (await page.locator("tbody").textContent()) ?? "";
    expect(rows).toContain(key.slice(0, 11));
    expect(rows).toContain("dashboard");
    await shot(page, "workflow-8-inference-logs");
  },
  180_000,
);
