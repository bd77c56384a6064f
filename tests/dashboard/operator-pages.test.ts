// The dashboard pages an operator lives in, in Chromium against the dashboard gateway in process (the
// test database: PGlite, or PostgreSQL with TEST_DATABASE_URL): one inference request's own page
// (guardrail findings, served by a fallback and which of its replicas, timings, cost), the overview naming deleted deployments
// and choosing its range from the traffic's age (an API key's page from its own), a form per provider linked to its guide, the least
// privileged role preselected for a new user, the audit log's details folded, and a password changed
// through the Account page (the old one fails, the new one signs in, another session is ended). Every
// page visited is checked at 1280 and 390 px for elements wider than their container and with axe-core.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { apiKeys, deployments, replicas } from "#db/schema/index.ts";
import { writeInferenceLogs } from "#services/inference-logs/logs.ts";
import { defaultOrgId, insertDeployment } from "../management/support.ts";
import { adminEmail, adminPassword, gatewayHandler, startTestApp, type TestApp } from "../support/app.ts";
import { axeViolations, chromiumPath, haveChromium, overflowProblems, shot, signIn } from "./browser.ts";

let t: TestApp;
let server: ReturnType<typeof Bun.serve>;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let baseURL: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  if (!haveChromium) return;
  t = await startTestApp();
  const { handle } = await gatewayHandler(t.app, "dashboard");
  server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: handle });
  baseURL = `http://127.0.0.1:${server.port}`;
  const orgId = await defaultOrgId(t.app.db);
  // Two deployments that carried the same name: one deleted since, one live; a third whose row is gone.
  ids.live = (await insertDeployment(t.app.db, orgId, { name: "support-chat" })).id;
  ids.old = (await insertDeployment(t.app.db, orgId, { name: "support-chat-old" })).id;
  await t.app.db
    .update(deployments)
    .set({ deletedAt: new Date(), name: "support-chat" })
    .where(eq(deployments.id, ids.old));
  // The fallback has two replicas; the second answered the guarded request.
  ids.fallback = (
    await insertDeployment(t.app.db, orgId, {
      name: "backup-chat",
      replicas: [
        { state: "READY", endpoint: "http://127.0.0.1:41000/v1" },
        { state: "READY", endpoint: "http://127.0.0.1:41001/v1" },
      ],
    })
  ).id;
  // The first was restarted since the earlier request it answered: that request's replica is gone.
  await t.app.db
    .update(replicas)
    .set({ startedAt: new Date() })
    .where(and(eq(replicas.deploymentId, ids.fallback), eq(replicas.index, 0)));
  ids.earlier = crypto.randomUUID();
  // Two API keys: one whose only request is minutes old, one that made none.
  const key = (name: string) =>
    t.app.db
      .insert(apiKeys)
      .values({ orgId, name, keyHash: crypto.randomUUID(), prefix: `sk-${name.slice(0, 4)}` })
      .returning()
      .then((rows) => rows[0]?.id as string);
  ids.usedKey = await key("fresh-bot");
  ids.idleKey = await key("idle-bot");
  ids.gone = crypto.randomUUID();
  ids.entry = crypto.randomUUID();
  const now = Date.now();
  const base = { org_id: orgId, key_prefix: "sk-test", status: 200, prompt_tokens: 20, completion_tokens: 8 };
  await writeInferenceLogs(t.app, [
    // Asked for support-chat, refused to it (input redacted), answered by its fallback.
    {
      ...base,
      id: ids.entry,
      request_id: "req-guarded",
      deployment_id: ids.live,
      model: "support-chat",
      cached_tokens: 12,
      latency_ms: 812,
      ttft_ms: 143,
      cost: 0.000123,
      stream: true,
      guardrails: {
        input: {
          action: "redact",
          findings: [
            { scanner: "pii", type: "email" },
            { scanner: "pii", type: "phone" },
          ],
        },
        output: { action: "allow", findings: [] },
      },
      served_by_deployment_id: ids.fallback,
      served_by: "backup-chat",
      // As the gateway may be handed it: the log keeps neither the user info nor the query.
      served_by_endpoint: "http://ops:hunter2@127.0.0.1:41001/v1?key=abc",
      created_at: new Date(now - 5 * 60_000).toISOString(),
    },
    {
      ...base,
      id: ids.earlier,
      request_id: "req-earlier",
      deployment_id: ids.live,
      model: "support-chat",
      latency_ms: 200,
      served_by_deployment_id: ids.fallback,
      served_by: "backup-chat",
      served_by_endpoint: "http://127.0.0.1:41000/v1",
      created_at: new Date(now - 10 * 60_000).toISOString(),
    },
    {
      ...base,
      request_id: "req-keyed",
      api_key_id: ids.usedKey,
      deployment_id: ids.live,
      model: "support-chat",
      latency_ms: 150,
      created_at: new Date(now - 3 * 60_000).toISOString(),
    },
    {
      ...base,
      request_id: "req-old",
      deployment_id: ids.old,
      model: "support-chat",
      latency_ms: 500,
      ttft_ms: 500,
    },
    {
      ...base,
      request_id: "req-gone",
      deployment_id: ids.gone,
      model: "gone-model",
      served_by_deployment_id: ids.gone,
      served_by: "gone-model",
      latency_ms: 300,
    },
  ]);
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ["--no-sandbox", "--disable-dev-shm-usage"],
  });
  context = await browser.newContext({ baseURL, viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  page.on("dialog", (dialog) => void dialog.accept());
  await signIn(page);
}, 120_000);

afterAll(async () => {
  if (!haveChromium) return;
  await browser?.close();
  server?.stop(true);
  await t?.close();
});

/** The page at both sizes: nothing wider than its container, and axe-core clean. */
async function layoutProblems(path: string): Promise<string[]> {
  const problems: string[] = [];
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    const res = await page.goto(path);
    expect({ path, status: res?.status() }).toEqual({ path, status: 200 });
    problems.push(...(await overflowProblems(page, `${path} at ${width}`)));
    for (const v of await axeViolations(page)) problems.push(`${path} at ${width}: ${v}`);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  return problems;
}

describe.skipIf(!haveChromium)("operator pages", () => {
  test("a log entry's page: guardrail findings, served by the fallback's replica, timings, cached tokens, cost", async () => {
    await page.goto("/logs");
    await page.locator(`a[href="/logs/${ids.entry}"]`).click();
    await page.waitForURL(`**/logs/${ids.entry}`);
    const input = page.locator('[data-guardrails] tr[data-stage="input"]');
    expect(await input.locator(".badge").textContent()).toBe("redact");
    expect(await input.locator("ul.findings li").allTextContents()).toEqual(["pii email", "pii phone"]);
    const servedBy = page.locator("[data-served-by]");
    expect(await servedBy.textContent()).toContain("backup-chat");
    expect(await servedBy.textContent()).toContain("fallback");
    expect(await servedBy.locator("a").getAttribute("href")).toBe(`/deployments/${ids.fallback}`);
    // The replica that answered: its number in the deployment's replica list and its base URL.
    const replica = (await page.locator("[data-replica]").textContent()) ?? "";
    expect(replica.replace(/\s+/g, " ").trim()).toBe("replica #1 at http://127.0.0.1:41001/v1");
    expect(await page.content()).not.toContain("hunter2");
    const figure = (name: string) => page.locator(`[data-figure="${name}"]`).textContent();
    expect(await figure("ttft")).toBe("143 ms");
    expect(await figure("latency")).toBe("812 ms");
    expect(await figure("cached_tokens")).toBe("12");
    expect(await figure("cost")).toContain("0.000123");
    await shot(page, "log-entry");
    expect(await layoutProblems(`/logs/${ids.entry}`)).toEqual([]);
    // A replica restarted since the request answered it is not named for it: its URL alone.
    await page.goto(`/logs/${ids.earlier}`);
    const earlier = (await page.locator("[data-replica]").textContent()) ?? "";
    expect(earlier).toContain("no longer there");
    expect(earlier).toContain("http://127.0.0.1:41000/v1");
    expect(earlier).not.toContain("#0");
    // Another organization's entry, or no entry at all, is not found.
    expect((await page.goto(`/logs/${crypto.randomUUID()}`))?.status()).toBe(404);
    expect((await page.goto("/logs/not-an-id"))?.status()).toBe(404);
  }, 90_000);

  test("the overview: deleted deployments by their last name, no two rows alike, the range fits the traffic", async () => {
    await page.goto("/");
    // All the traffic is minutes old: the last hour, not the last pixels of a day.
    expect(await page.locator('nav.ranges a[aria-current="page"]').textContent()).toBe("Last hour");
    const names = await page.$$eval("table[data-usage-table] tbody th[scope=row]", (cells) =>
      cells.map((c) => c.textContent?.trim() ?? ""),
    );
    expect(names.sort()).toEqual(["gone-model (deleted)", "support-chat", "support-chat (deleted)"]);
    expect(new Set(names).size).toBe(names.length);
    // The table fits its card at 1280 px: no column hides behind a scroll.
    const fit = await page.$eval("section[aria-label='Usage per deployment']", (s) => ({
      scroll: s.scrollWidth,
      client: s.clientWidth,
    }));
    expect(fit.scroll).toBeLessThanOrEqual(fit.client);
    await shot(page, "overview-deleted");
    expect(await layoutProblems("/")).toEqual([]);
  }, 90_000);

  test("an API key's page picks its range from the key's traffic: minutes old, the hour; none, the day", async () => {
    const current = () => page.locator('nav.ranges a[aria-current="page"]').textContent();
    await page.goto(`/api-keys/${ids.usedKey}`);
    expect(await current()).toBe("Last hour");
    await page.goto(`/api-keys/${ids.idleKey}`);
    expect(await current()).toBe("Last day");
    // A range asked for is kept.
    await page.goto(`/api-keys/${ids.usedKey}?range=week`);
    expect(await current()).toBe("Last week");
    expect((await page.goto("/api-keys/not-a-key"))?.status()).toBe(404);
  }, 60_000);

  test("providers: a form per provider with its documented fields and a guide link that exists; local ready", async () => {
    await page.goto("/providers");
    const badge = (p: string) => page.locator(`#provider-${p} h2 .badge`).textContent();
    expect(await badge("local")).toBe("ready");
    expect(await badge("external")).toBe("ready");
    expect(await badge("nosana")).toBe("not configured");
    expect(await page.locator("textarea[name=settings_json]").count()).toBe(0);
    const links = await page.$$eval("a[data-docs]", (as) => as.map((a) => a.getAttribute("href") ?? ""));
    expect(links.length).toBe(6);
    for (const href of links) {
      await page.goto(href);
      const anchor = href.split("#")[1] as string;
      expect({ href, found: await page.locator(`article.doc [id="${anchor}"]`).count() }).toEqual({
        href,
        found: 1,
      });
    }
    await page.goto("/providers");
    // A number that is none: the field says so, nothing is saved.
    await page.locator("#f-akash-setting_deposit_usd").fill("five");
    await page.locator("#provider-akash button[type=submit]").click();
    expect(await page.locator("#f-akash-setting_deposit_usd-error").textContent()).toContain("number");
    await page.locator("#f-akash-setting_deposit_usd").fill("7.5");
    await page.locator("#f-akash-credential_api_key").fill("akash-key-0123456789");
    await page.locator("#provider-akash button[type=submit]").click();
    await page.waitForURL("**/providers?saved=akash");
    expect(await page.locator("#f-akash-setting_deposit_usd").inputValue()).toBe("7.5");
    expect(await page.locator("#provider-akash dl.facts").textContent()).toContain("****6789");
    expect(await badge("akash")).toBe("configured");
    await shot(page, "providers-forms");
    expect(await layoutProblems("/providers")).toEqual([]);
    expect(await layoutProblems("/docs/providers.md")).toEqual([]);
    // Only the guides of docs/ are served.
    expect((await page.goto("/docs/not-a-guide.md"))?.status()).toBe(404);
  }, 120_000);

  test("users: Add a user preselects the role with the fewest permissions", async () => {
    await page.goto("/users");
    expect(await page.locator("#f-role").inputValue()).toBe("viewer");
    expect(await layoutProblems("/users")).toEqual([]);
  }, 60_000);

  test("the audit log: dates on one line, details folded and readable at 1280 px", async () => {
    await page.goto("/audit");
    const when = page.locator("td.when").first();
    const lineHeight = await when.evaluate((td) => Number.parseFloat(getComputedStyle(td).lineHeight));
    const box = await when.evaluate((td) => {
      const range = document.createRange();
      range.selectNodeContents(td);
      return range.getBoundingClientRect().height;
    });
    expect(box).toBeLessThan(lineHeight * 1.5);
    const details = page.locator("details.audit-details").first();
    await details.locator("summary").click();
    const json = JSON.parse((await details.locator("pre").textContent()) ?? "");
    expect(Object.keys(json).length).toBeGreaterThan(0);
    // Every record's details open: the table still fits its box at 1280 px.
    await page.$$eval("details.audit-details", (all) => {
      for (const d of all) (d as HTMLDetailsElement).open = true;
    });
    const fit = await page.$eval("section.table-scroll", (s) => ({
      scroll: s.scrollWidth,
      client: s.clientWidth,
    }));
    expect(fit.scroll).toBeLessThanOrEqual(fit.client);
    await shot(page, "audit-log");
    expect(await layoutProblems("/audit")).toEqual([]);
  }, 60_000);

  test("the navigation folds behind a Menu button at 390 px and opens onto every section", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/logs");
    const menu = page.getByRole("button", { name: /Menu/ });
    expect(await menu.getAttribute("aria-expanded")).toBe("false");
    expect(await page.locator("#sections-list").isVisible()).toBe(false);
    await menu.click();
    expect(await menu.getAttribute("aria-expanded")).toBe("true");
    const audit = page.locator("#sections-list a", { hasText: "Audit log" });
    expect(await audit.isVisible()).toBe(true);
    // Every section is whole on the screen: none cut at the edge.
    const cut = await page.$$eval("#sections-list a", (as) =>
      as.filter((a) => a.getBoundingClientRect().right > window.innerWidth).map((a) => a.textContent),
    );
    expect(cut).toEqual([]);
    await shot(page, "nav-open-narrow");
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto("/logs");
    expect(await page.getByRole("button", { name: /Menu/ }).isVisible()).toBe(false);
    expect(await page.locator("#sections-list").isVisible()).toBe(true);
  }, 60_000);

  test("the password changed on the Account page: old one refused, new one signs in, the other session ends", async () => {
    const other = await browser.newContext({ baseURL, viewport: { width: 1280, height: 800 } });
    try {
      const otherPage = await other.newPage();
      await signIn(otherPage);
      expect(await layoutProblems("/account")).toEqual([]);
      const newPassword = "a much longer new passphrase";
      const fill = async (current: string, next: string, again: string) => {
        await page.getByLabel("Current password").fill(current);
        await page.getByLabel("New password", { exact: true }).fill(next);
        await page.getByLabel("New password again").fill(again);
        await page.getByRole("button", { name: "Change password" }).click();
      };
      await page.goto("/account");
      await fill(adminPassword, newPassword, "something else entirely");
      expect(await page.locator("#f-password-confirm_password-error").textContent()).toContain(
        "does not match",
      );
      await fill("not my password at all", newPassword, newPassword);
      expect(await page.locator("#f-password-current_password-error").textContent()).toContain(
        "not your current password",
      );
      await fill(adminPassword, newPassword, newPassword);
      await page.waitForURL("**/account?done=password");
      expect(await page.locator(".notice").first().textContent()).toContain("Password changed");
      // This browser carries on with its new session.
      await page.goto("/logs");
      expect(new URL(page.url()).pathname).toBe("/logs");
      // The other session has ended.
      await otherPage.goto("/logs");
      expect(new URL(otherPage.url()).pathname).toBe("/login");
      // The old password no longer signs in; the new one does.
      await otherPage.getByLabel("E-mail").fill(adminEmail);
      await otherPage.getByLabel("Password").fill(adminPassword);
      await otherPage.getByRole("button", { name: "Sign in" }).click();
      await otherPage.locator(".error").waitFor();
      expect(new URL(otherPage.url()).pathname).toBe("/login");
      await signIn(otherPage, adminEmail, newPassword);
      expect(new URL(otherPage.url()).pathname).toBe("/");
    } finally {
      await other.close();
    }
  }, 90_000);
});
