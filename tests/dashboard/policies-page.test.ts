// The deployment's policies page in Chromium: a rate limit of 1 request a minute set in the page is
// saved as the deployment's own and refuses the playground's second message; reset to the
// organization's; a prompt template, retrieval collections and guardrails attached and seen saved; a
// bad value is refused beside its field; an organization-wide policy shows as inherited.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { GET as getPolicy } from "#routes/filtration/management/config/[policy_type].ts";
import type { POST as createCollection } from "#routes/filtration/management/knowledge-base/collections/index.ts";
import type { POST as createPrompt } from "#routes/filtration/management/prompts/index.ts";
import { adminPassword } from "../support/app.ts";
import {
  type BrowserPlatform,
  haveChromium,
  newPage,
  shot,
  signIn,
  startBrowserPlatform,
} from "./browser.ts";
import { adminToken, apiJson, runningTinyDeployment, stopDeployments } from "./deployment.ts";

let bp: BrowserPlatform;
let page: Page;
let deploymentId: string;
let templateId: string;
let collectionId: string;
let token: string;

// Typed as `apiJson` types it: a route's export, or the shape the test reads.
const api = <R = unknown>(method: string, url: string, body?: unknown) =>
  apiJson<R>(url, method, body, token);

/** The guardrails policy as the test reads it (the route types a policy's config loosely, by type). */
interface GuardrailsPolicyRead {
  config: { input: unknown; output: { mode: string } };
}

beforeAll(async () => {
  if (!haveChromium) return;
  // Registration on, so the viewer test can add a user (who joins the default organization as a viewer).
  bp = await startBrowserPlatform({ ALLOW_REGISTRATION: "true" });
  token = await adminToken(bp);
  deploymentId = await runningTinyDeployment(bp, "tiny-policies");
  templateId = (
    await api<typeof createPrompt>("POST", `${bp.filtrationUrl}/management/prompts`, {
      name: "terse <script>alert(1)</script>",
      system_prompt: "Answer in one word.",
    })
  ).id;
  collectionId = (
    await api<typeof createCollection>("POST", `${bp.filtrationUrl}/management/knowledge-base/collections`, {
      name: "handbook",
    })
  ).id;
  page = (await newPage(bp)).page;
  await signIn(page);
}, 120_000);
afterAll(async () => {
  if (bp) await stopDeployments(bp).catch(() => {});
  await bp?.close();
}, 60_000);

const card = (type: string) => page.locator(`#policy-${type}`);
const sourceOf = (type: string) => card(type).locator("[data-source]").getAttribute("data-source");
const policiesPath = () => `/deployments/${deploymentId}/policies`;

test.skipIf(!haveChromium)(
  "a rate limit set in the page is the deployment's own, refuses the playground's second message, and resets",
  async () => {
    await page.goto(policiesPath());
    expect(await page.locator("h1").textContent()).toBe("Policies of tiny-policies");
    expect(await page.getByRole("link", { name: /Deployment tiny-policies/ }).getAttribute("href")).toBe(
      `/deployments/${deploymentId}`,
    );
    for (const type of ["prompt", "rag", "guardrails", "rate_limit", "quota"])
      expect(await sourceOf(type)).toBe("default");
    expect(await card("rate_limit").getByRole("button", { name: "Use the organization's" }).count()).toBe(0);
    await shot(page, "policies-defaults");

    // A bad value (the browser's own check turned off): refused beside the field, kept, nothing saved.
    await card("rate_limit")
      .locator("form")
      .evaluate((f) => f.setAttribute("novalidate", ""));
    await card("rate_limit").getByLabel("Requests per minute").fill("0");
    await card("rate_limit").getByRole("button", { name: "Save for this deployment" }).click();
    expect(await card("rate_limit").locator(".field-error").textContent()).toContain("At least 1");
    expect(await card("rate_limit").getByLabel("Requests per minute").inputValue()).toBe("0");
    expect(await sourceOf("rate_limit")).toBe("default");
    await shot(page, "policies-rate-limit-error");

    await page.goto(policiesPath());
    await card("rate_limit").getByLabel("Requests per minute").fill("1");
    await card("rate_limit").getByRole("button", { name: "Save for this deployment" }).click();
    await page.waitForURL(/saved=rate_limit/);
    expect(await sourceOf("rate_limit")).toBe("deployment");
    expect(await card("rate_limit").getByRole("status").textContent()).toContain("Saved");
    expect(await card("rate_limit").getByLabel("Requests per minute").inputValue()).toBe("1");
    await shot(page, "policies-rate-limit-saved");
    const saved = await api(
      "GET",
      `${bp.filtrationUrl}/management/config/rate_limit?deployment_id=${deploymentId}`,
    );
    expect(saved).toMatchObject({ source: "deployment", config: { requests_per_minute: 1 } });

    // The playground: the first message is answered, the second is over the limit.
    await page.goto("/playground?deployment=tiny-policies");
    await page.getByLabel("Max tokens").fill("8");
    await page.getByLabel("Message").fill("one");
    await page.getByRole("button", { name: "Send" }).click();
    await page.waitForSelector("[data-answer]");
    await page.waitForSelector("[data-send]:not([disabled])");
    expect(await page.locator("[data-playground-error]").isHidden()).toBe(true);
    await page.getByLabel("Message").fill("two");
    await page.getByRole("button", { name: "Send" }).click();
    const error = page.locator("[data-playground-error]");
    await error.waitFor({ state: "visible" });
    expect(await error.textContent()).toMatch(/Rate limit.*rate limit reached/i);
    expect(await page.locator("[data-answer]").count()).toBe(1);
    await shot(page, "playground-rate-limited");

    // Back to the organization's (none): confirmed, then the default applies again.
    await page.goto(policiesPath());
    page.once("dialog", (dialog) => dialog.accept());
    await card("rate_limit").getByRole("button", { name: "Use the organization's" }).click();
    await page.waitForURL((url) => !url.search.includes("saved"));
    expect(await sourceOf("rate_limit")).toBe("default");
    expect(await card("rate_limit").getByLabel("Requests per minute").inputValue()).toBe("");
    await shot(page, "policies-rate-limit-reset");
  },
  120_000,
);

test.skipIf(!haveChromium)(
  "a prompt template, retrieval collections and guardrails attached in the page are saved; an organization's policy shows as inherited",
  async () => {
    await page.goto(policiesPath());
    // The template's name is text, not markup.
    expect(await card("prompt").locator("option", { hasText: "terse <script>" }).count()).toBe(1);
    await card("prompt").getByLabel("Template").selectOption(templateId);
    await card("prompt").getByRole("button", { name: "Save for this deployment" }).click();
    await page.waitForURL(/saved=prompt/);
    expect(await sourceOf("prompt")).toBe("deployment");
    expect(await card("prompt").getByLabel("Template").inputValue()).toBe(templateId);

    await card("rag").getByLabel("handbook").check();
    await card("rag").getByLabel("Passages (top_k)").fill("3");
    await card("rag").getByRole("button", { name: "Save for this deployment" }).click();
    await page.waitForURL(/saved=rag/);
    expect(await sourceOf("rag")).toBe("deployment");
    expect(await card("rag").getByLabel("handbook").isChecked()).toBe(true);
    expect(await card("rag").getByLabel("handbook").getAttribute("value")).toBe(collectionId);
    expect(await card("rag").getByLabel("Passages (top_k)").inputValue()).toBe("3");

    await card("guardrails").getByLabel("pii: action").first().selectOption("block");
    await card("guardrails").getByLabel("toxicity: threshold (optional, 0 to 1)").first().fill("0.8");
    await card("guardrails").getByRole("button", { name: "Save for this deployment" }).click();
    await page.waitForURL(/saved=guardrails/);
    expect(await sourceOf("guardrails")).toBe("deployment");
    const guardrails = await api<GuardrailsPolicyRead>(
      "GET",
      `${bp.filtrationUrl}/management/config/guardrails?deployment_id=${deploymentId}`,
    );
    expect(guardrails.config.input).toMatchObject({
      pii: { action: "block" },
      toxicity: { action: "off", threshold: 0.8 },
    });
    expect(guardrails.config.output.mode).toBe("blocking");

    // An organization-wide quota shows as inherited, with no reset offered.
    await api("POST", `${bp.filtrationUrl}/management/config/quota`, { config: { requests_per_day: 500 } });
    await page.goto(policiesPath());
    expect(await sourceOf("quota")).toBe("organization");
    expect(await card("quota").getByLabel("Requests per day").inputValue()).toBe("500");
    expect(await card("quota").getByRole("button", { name: "Use the organization's" }).count()).toBe(0);
    await shot(page, "policies-attached");

    // Detach retrieval again: the organization's (none) applies.
    page.once("dialog", (dialog) => dialog.accept());
    await card("rag").getByRole("button", { name: "Use the organization's" }).click();
    await page.waitForLoadState();
    expect(await sourceOf("rag")).toBe("default");
  },
  60_000,
);

test.skipIf(!haveChromium)(
  "a viewer sees the policies without a way to change them, and the server refuses a change anyway",
  async () => {
    // A new user without an organization of their own joins the default one as a viewer.
    const registered = await fetch(`${bp.filtrationUrl}/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "viewer@example.com", password: adminPassword }),
    });
    expect(registered.status).toBe(201);
    const viewer = (await newPage(bp)).page;
    await signIn(viewer, "viewer@example.com", adminPassword);
    await viewer.goto(policiesPath());
    expect(await viewer.locator("h1").textContent()).toBe("Policies of tiny-policies");
    expect(await viewer.getByRole("button", { name: "Save for this deployment" }).count()).toBe(0);
    expect(await viewer.getByRole("button", { name: "Use the organization's" }).count()).toBe(0);
    expect(await viewer.locator("#policy-prompt select").isDisabled()).toBe(true);
    await shot(viewer, "policies-viewer");
    const status = await viewer.evaluate(async (path) => {
      const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute("content") ?? "";
      const r = await fetch(`${path}/rate_limit`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "X-CSRF-Token": csrf },
        body: "requests_per_minute=5",
      });
      return r.status;
    }, policiesPath());
    expect(status).toBe(403);
    const still = await api<typeof getPolicy>(
      "GET",
      `${bp.filtrationUrl}/management/config/rate_limit?deployment_id=${deploymentId}`,
    );
    expect(still.source).toBe("default");
  },
  60_000,
);
