// The README's guardrails-and-knowledge-base walk-through in the dashboard, in Chromium: a collection
// and PII redaction attached on the deployment's policies page, "Try a question" showing the redacted
// prompt with the retrieved passage and its document, the playground answering the same message, and
// the inference logs page saying what the guardrail did and where the passages came from.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { POST as createCollection } from "#routes/filtration/management/knowledge-base/collections/index.ts";
import { fetchJson } from "../support/json.ts";
import { simulateDelay, until } from "../support/wait.ts";
import {
  type BrowserPlatform,
  haveChromium,
  newPage,
  shot,
  signIn,
  startBrowserPlatform,
} from "./browser.ts";
import { adminToken, runningTinyDeployment, stopDeployments } from "./deployment.ts";

let bp: BrowserPlatform;
let page: Page;
let deploymentId: string;

const message = "I am jane.doe@example.com. How many weeks of parental leave do I get?";
/** The inference gateway's context cache keeps a deployment's policies up to a second (and a margin). */
const contextCacheMs = 1100;

beforeAll(async () => {
  if (!haveChromium) return;
  bp = await startBrowserPlatform();
  const token = await adminToken(bp);
  deploymentId = await runningTinyDeployment(bp, "tiny-handbook");
  const collection = (
    await fetchJson<typeof createCollection>(`${bp.filtrationUrl}/management/knowledge-base/collections`, {
      token,
      body: { name: "handbook" },
    })
  ).body;
  const form = new FormData();
  form.append("collection_id", collection.id);
  form.append(
    "files",
    new File(
      ["# Leave\n\n## Parental leave\nEmployees receive sixteen weeks of paid parental leave.\n"],
      "leave.md",
      { type: "text/markdown" },
    ),
  );
  const uploaded = await fetch(`${bp.filtrationUrl}/management/knowledge-base/upload`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  expect(uploaded.status).toBe(201);
  page = (await newPage(bp)).page;
  await signIn(page);
}, 120_000);
afterAll(async () => {
  if (bp) await stopDeployments(bp).catch(() => {});
  await bp?.close();
}, 60_000);

test.skipIf(!haveChromium)(
  "attach a collection and PII redaction, see the redacted prompt with its passage, chat, and read the log",
  async () => {
    await page.goto(`/deployments/${deploymentId}/policies`);
    const rag = page.locator("#policy-rag");
    await rag.getByLabel("handbook").check();
    await rag.getByRole("button", { name: "Save for this deployment" }).click();
    await page.waitForURL(/saved=rag/);
    const guardrails = page.locator("#policy-guardrails");
    await guardrails.getByLabel("pii: action").first().selectOption("redact");
    await guardrails.getByRole("button", { name: "Save for this deployment" }).click();
    await page.waitForURL(/saved=guardrails/);

    const preview = page.locator("#policy-preview");
    await preview.getByLabel("A user message").fill(message);
    await preview.getByRole("button", { name: "Show what the model receives" }).click();
    const result = page.locator("#preview-result .policy-preview");
    await result.waitFor();
    const shown = (await result.textContent()) ?? "";
    expect(shown).toContain("I am [EMAIL]. How many weeks");
    expect(shown).not.toContain("jane.doe@example.com");
    expect(shown).toContain("(leave.md)");
    expect(shown).toContain("sixteen weeks of paid parental leave");
    expect(shown).toContain("input redact (pii email)");
    expect(shown).toContain("full text: leave.md");
    await result.scrollIntoViewIfNeeded();
    await shot(page, "policies-try-a-question");

    // The policies just saved reach the inference gateway once its context cache (1 s) has aged: it
    // runs in the platform's process, whose clock a test cannot move, and says nothing when it reloads.
    await simulateDelay(contextCacheMs);
    await page.goto("/playground?deployment=tiny-handbook");
    await page.getByLabel("Max tokens").fill("8");
    await page.getByLabel("Message").fill(message);
    await page.getByRole("button", { name: "Send" }).click();
    await page.waitForSelector("[data-answer]");
    await page.waitForSelector("[data-send]:not([disabled])");
    expect(await page.locator("[data-playground-error]").isHidden()).toBe(true);

    await page.goto("/logs");
    const row = page.locator("tbody tr").first();
    // Logs are written in batches: the row appears within a second or two.
    const rowText = async () => ((await row.count()) > 0 ? ((await row.textContent()) ?? "") : "");
    await until(
      async () => {
        if ((await rowText()).includes("leave.md")) return true;
        await page.reload();
        return false;
      },
      { what: "the chat's row in the inference logs", timeoutMs: 10_000, intervalMs: 500 },
    );
    const logged = (await page.locator("tbody tr").first().textContent()) ?? "";
    expect(logged).toContain("input redact (pii email)");
    expect(logged).toContain("full text: leave.md");
    expect(logged).not.toContain("jane.doe");
    await shot(page, "logs-guardrails-retrieval");
  },
  120_000,
);
