// The playground in Chromium: a RUNNING llama.cpp deployment of the tiny model, picked in the page; the
// answer's text grows in the page piece by piece as tokens arrive (each change seen in its own mutation
// record), and a second turn continues the conversation.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { GET as deploymentLogs } from "#routes/filtration/management/deployments/[id]/logs.ts";
import { fetchJson } from "../support/json.ts";
import { until } from "../support/wait.ts";
import {
  answerGrowth,
  type BrowserPlatform,
  haveChromium,
  newPage,
  shot,
  signIn,
  startBrowserPlatform,
  startSignedIn,
  watchAnswerGrowth,
} from "./browser.ts";
import { adminToken, runningTinyDeployment, stopDeployments } from "./deployment.ts";

let bp: BrowserPlatform;
let page: Page;

beforeAll(async () => {
  if (!haveChromium) return;
  ({ bp, page } = await startSignedIn());
}, 90_000);
afterAll(async () => {
  if (bp) await stopDeployments(bp).catch(() => {});
  await bp?.close();
}, 60_000);

const sendIdle = (page: Page) => page.waitForSelector("[data-send]:not([disabled])");

test.skipIf(!haveChromium)(
  "an empty playground says what to do; a RUNNING deployment streams its answer into the page, turn after turn",
  async () => {
    await page.goto("/playground");
    expect(await page.getByText("No RUNNING deployment to chat with").count()).toBe(1);
    await shot(page, "playground-empty");

    const deploymentId = await runningTinyDeployment(bp, "tiny-chat");
    await page.goto("/playground?deployment=tiny-chat");
    expect(await page.getByLabel("Deployment").inputValue()).toBe("tiny-chat");
    await shot(page, "playground-ready");

    await watchAnswerGrowth(page);
    await page.getByLabel("System prompt (optional)").fill("You are terse.");
    await page.getByLabel("Max tokens").fill("48");
    await page.getByLabel("Message").fill("Hello there");
    await page.getByRole("button", { name: "Send" }).click();
    // Send is disabled while the answer streams.
    expect(await page.locator("[data-send]").isDisabled()).toBe(true);
    await sendIdle(page);
    const first = await answerGrowth(page);
    // The page rendered the text in several pieces, growing: it streamed, not all at once at the end.
    expect(first.length).toBeGreaterThanOrEqual(2);
    expect(first).toEqual([...first].sort((a, b) => a - b));
    expect(await page.locator("[data-playground-error]").isHidden()).toBe(true);
    const answer = (await page.locator("[data-answer]").first().textContent()) ?? "";
    expect(answer.length).toBeGreaterThan(0);
    await shot(page, "playground-first-answer");

    // A second turn: the first is kept in the page, the second answer streams below it.
    await page.getByLabel("Message").fill("And again");
    await page.getByRole("button", { name: "Send" }).click();
    await sendIdle(page);
    expect(await page.locator(".turn.user").count()).toBe(2);
    expect(await page.locator("[data-answer]").count()).toBe(2);
    expect(await page.locator("[data-answer]").first().textContent()).toBe(answer);
    expect(((await page.locator("[data-answer]").nth(1).textContent()) ?? "").length).toBeGreaterThan(0);
    expect((await answerGrowth(page)).length).toBeGreaterThan(first.length);
    await shot(page, "playground-second-turn");

    // The inference log records the calls as the dashboard's: no API key, prefix "dashboard".
    const token = await adminToken(bp);
    // Written by the platform's log batcher, in another process: asked for until both are there.
    const items = await until(
      async () => {
        const r = await fetchJson<typeof deploymentLogs>(
          `${bp.filtrationUrl}/management/deployments/${deploymentId}/logs`,
          { token },
        );
        const logged = r.body.items ?? [];
        return logged.length >= 2 && logged;
      },
      { what: "the two calls in the inference log", timeoutMs: 10_000, intervalMs: 300 },
    );
    expect(items.length).toBe(2);
    for (const item of items)
      expect(item).toMatchObject({ key_prefix: "dashboard", api_key_id: null, status: 200, stream: true });
  },
  120_000,
);

test.skipIf(!haveChromium)(
  "the playground's chat refuses a request without the CSRF token",
  async () => {
    const status = await page.evaluate(async () => {
      const r = await fetch("/playground/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ deployment: "tiny-chat", messages: [{ role: "user", content: "hi" }] }),
      });
      return r.status;
    });
    expect(status).toBe(403);
  },
  30_000,
);

test.skipIf(!haveChromium)(
  "a dashboard running without the inference service says the playground is unavailable, and its chat answers 503",
  async () => {
    const alone = await startBrowserPlatform({ SERVICES: "filtration,orchestration,dashboard" });
    try {
      const { page: p } = await newPage(alone);
      await signIn(p);
      await p.goto("/playground");
      expect(await p.getByText("The playground is unavailable here.").count()).toBe(1);
      expect(await p.locator("form[data-playground]").count()).toBe(0);
      await shot(p, "playground-no-inference");
      const answer = await p.evaluate(async () => {
        const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute("content") ?? "";
        const r = await fetch("/playground/chat", {
          method: "POST",
          headers: { "content-type": "application/json", "X-CSRF-Token": csrf },
          body: JSON.stringify({ deployment: "x", messages: [{ role: "user", content: "hi" }] }),
        });
        return { status: r.status, text: await r.text() };
      });
      expect(answer.status).toBe(503);
      expect(answer.text).toContain("SERVICES has no inference");
    } finally {
      await alone.close();
    }
  },
  90_000,
);
