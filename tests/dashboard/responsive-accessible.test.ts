// Every page of the dashboard in Chromium at a laptop's size (1280 × 800) and a phone's (390 × 844): no
// element wider than its container (overflowProblems in browser.ts), and axe-core finds no violation of
// the WCAG 2.1 A and AA rules. Pages with an id are visited with real records (a RUNNING deployment, its
// pool, a collection, a template). Then keyboard focus survives the deployment page's polling refresh,
// and the outcome of a change (a live region) receives focus.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { GET as meRoute } from "#routes/filtration/auth/me.ts";
import type { GET as deploymentStatus } from "#routes/orchestration/deployment/status/[deployment_id].ts";
import { loadRoutes } from "#server/http/loader.ts";
import { fetchJson } from "../support/json.ts";
import {
  axeViolations,
  type BrowserPlatform,
  haveChromium,
  newPage,
  overflowProblems,
  shot,
  signIn,
  startBrowserPlatform,
} from "./browser.ts";
import { adminToken, apiJson, runningTinyDeployment, stopDeployments } from "./deployment.ts";

let bp: BrowserPlatform;
const internalKey = `internal-${crypto.randomUUID()}`;
const ids: Record<string, string> = {};

const post = (url: string, token: string, body: unknown): Promise<{ id: string }> =>
  apiJson<{ id: string }>(url, "POST", body, token);

beforeAll(async () => {
  if (!haveChromium) return;
  bp = await startBrowserPlatform({ INTERNAL_API_KEY: internalKey });
  ids.deployment = await runningTinyDeployment(bp, "a11y-chat");
  const token = await adminToken(bp);
  const status = (
    await fetchJson<typeof deploymentStatus>(`${bp.orchestrationUrl}/deployment/status/${ids.deployment}`, {
      token,
    })
  ).body;
  ids.pool = status.pool_id;
  ids.collection = (
    await post(`${bp.filtrationUrl}/management/knowledge-base/collections`, token, { name: "handbook" })
  ).id;
  ids.apiKey = (await post(`${bp.filtrationUrl}/management/api-keys`, token, { name: "a11y-key" })).id;
  // One logged request with guardrail findings, served by a fallback: its page is visited too.
  const me = await apiJson<typeof meRoute>(`${bp.filtrationUrl}/auth/me`, "GET", undefined, token);
  ids.logEntry = crypto.randomUUID();
  const logged = await fetch(`${bp.filtrationUrl}/internal/logs/create`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-internal-api-key": internalKey },
    body: JSON.stringify({
      id: ids.logEntry,
      request_id: "a11y-request",
      org_id: me.org_id,
      deployment_id: ids.deployment,
      model: "a11y-chat",
      status: 200,
      prompt_tokens: 12,
      completion_tokens: 4,
      latency_ms: 250,
      ttft_ms: 40,
      guardrails: { input: { action: "redact", findings: [{ scanner: "pii", type: "email" }] } },
      served_by_deployment_id: ids.deployment,
      served_by: "a11y-chat",
    }),
  });
  expect(logged.status).toBe(201);
  ids.template = (
    await post(`${bp.filtrationUrl}/management/prompts`, token, {
      name: "support",
      system_prompt: "Be brief.",
      user_template: "{{input}}",
    })
  ).id;
}, 120_000);

afterAll(async () => {
  if (!bp) return;
  await stopDeployments(bp);
  await bp.close();
});

/** Every GET page of the route table, with its :id filled from the records made above. */
async function pagePaths(): Promise<string[]> {
  const idFor: Record<string, string | undefined> = {
    deployments: ids.deployment,
    pools: ids.pool,
    "knowledge-base": ids.collection,
    prompts: ids.template,
    "api-keys": ids.apiKey,
    logs: ids.logEntry,
  };
  const routes = await loadRoutes("dashboard");
  return routes
    .filter((r) => r.method === "GET")
    .map((r) => r.path)
    .filter(
      (p) => !p.startsWith("/assets") && !p.startsWith("/login") && !/\/(live|rows|name-check)$/.test(p),
    )
    .map((p) =>
      p.replace(":id", idFor[p.split("/")[1] as string] ?? "missing").replace(":file", "providers.md"),
    );
}

describe.skipIf(!haveChromium)("every page at 1280 and 390 px", () => {
  for (const width of [1280, 390]) {
    test(`nothing wider than its container and no axe violation at ${width} px`, async () => {
      const { context, page } = await newPage(bp);
      try {
        await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
        await signIn(page);
        const paths = await pagePaths();
        expect(paths.length).toBeGreaterThan(14);
        expect(paths).toContain(`/logs/${ids.logEntry}`);
        expect(paths).toContain("/docs/providers.md");
        const problems: string[] = [];
        for (const path of paths) {
          const res = await page.goto(path);
          expect({ path, status: res?.status() }).toEqual({ path, status: 200 });
          problems.push(...(await overflowProblems(page, path)));
          for (const v of await axeViolations(page)) problems.push(`${path}: ${v}`);
          if (width === 390)
            await shot(page, `narrow${path.replace(/\//g, "-").replace(/-[0-9a-f-]{36}/, "-id")}`);
        }
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    }, 180_000);
  }
});

describe.skipIf(!haveChromium)("keyboard focus", () => {
  test("stays on its control across the deployment page's polling refresh", async () => {
    const { context, page } = await newPage(bp);
    try {
      await signIn(page);
      await page.goto(`/deployments/${ids.deployment}`);
      const terminate = page.getByRole("button", { name: "Terminate" });
      await terminate.focus();
      // The page refreshes its live part every 5 s while nothing is busy.
      await page.waitForEvent("response", { predicate: (r) => r.url().includes("/live"), timeout: 15_000 });
      await page.waitForTimeout(300);
      const focused = await page.evaluate(() => document.activeElement?.textContent?.trim());
      expect(focused).toBe("Terminate");
    } finally {
      await context.close();
    }
  }, 60_000);

  test("the outcome of a change, a live region, receives focus", async () => {
    const { context, page } = await newPage(bp);
    try {
      await signIn(page);
      await page.goto("/api-keys");
      await page.getByLabel("Name", { exact: true }).fill("announced");
      await page.getByRole("button", { name: /create key/i }).click();
      await page.locator("#new-key").waitFor();
      const focused = await page.evaluate(() => {
        const notice = document.activeElement?.closest(".notice");
        return {
          live: notice?.getAttribute("role") ?? notice?.getAttribute("aria-live"),
          text: notice?.textContent,
        };
      });
      expect(focused.live).toMatch(/^(status|polite)$/);
      expect(focused.text).toContain("you will not see it again");
    } finally {
      await context.close();
    }
  }, 60_000);
});

describe.skipIf(!haveChromium)("notices after a change", () => {
  test("a change that ends in a redirect is confirmed once on the next page, focused; deleting says so too", async () => {
    const { context, page } = await newPage(bp);
    page.on("dialog", (dialog) => void dialog.accept());
    try {
      await signIn(page);
      await page.goto("/prompts");
      await page.getByLabel("Name", { exact: true }).fill("noticed");
      await page.getByLabel("System prompt (optional)").fill("Be brief.");
      await page.getByRole("button", { name: "Create template" }).click();
      await page.waitForURL(/\/prompts\/[0-9a-f-]{36}$/);
      const notice = page.locator("[data-flash]");
      expect(await notice.textContent()).toBe("Template created.");
      expect(await page.evaluate(() => document.activeElement?.hasAttribute("data-flash"))).toBe(true);
      await page.reload();
      expect(await page.locator("[data-flash]").count()).toBe(0);
      await page.getByRole("button", { name: "Delete template" }).click();
      await page.waitForURL(/\/prompts$/);
      expect(await page.locator("[data-flash]").textContent()).toBe("Template deleted.");
    } finally {
      await context.close();
    }
  }, 60_000);

  test("a member is removed from the users page after a confirmation, and the page says so", async () => {
    const { context, page } = await newPage(bp);
    page.on("dialog", (dialog) => void dialog.accept());
    try {
      await signIn(page);
      await page.goto("/users");
      await page.getByLabel("E-mail", { exact: true }).fill("leaving@example.com");
      await page.getByLabel("First password").fill("a first password");
      await page.getByRole("button", { name: "Add user" }).click();
      expect(await page.locator("[data-flash]").textContent()).toBe(
        "Invitation made: the person joins when they accept it (a new account: at its first sign-in).",
      );
      // Invited, not a member yet; the new account's first sign-in makes it one.
      expect(await page.locator("tr", { hasText: "leaving@example.com" }).getByRole("button").count()).toBe(
        0,
      );
      const joined = await fetch(`${bp.filtrationUrl}/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "leaving@example.com", password: "a first password" }),
      });
      expect(joined.status).toBe(200);
      await page.goto("/users");
      const row = page.locator("tr", { hasText: "leaving@example.com" });
      await row.getByRole("button", { name: "Remove" }).click();
      await page.waitForURL(/\/users$/);
      expect(await page.locator("[data-flash]").textContent()).toContain("User removed");
      expect(await page.locator("tr", { hasText: "leaving@example.com" }).count()).toBe(0);
      // One's own row offers no removal.
      expect(
        await page
          .locator("tr", { hasText: "admin@example.com" })
          .getByRole("button", { name: "Remove" })
          .count(),
      ).toBe(0);
    } finally {
      await context.close();
    }
  }, 60_000);
});
