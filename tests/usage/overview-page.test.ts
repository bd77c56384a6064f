// The overview in Chromium with a month of generated inference logs, written through the logs' own
// writer into the test database (PGlite, or PostgreSQL with TEST_DATABASE_URL): every range draws its
// five charts, the figures on the page are a SQL count over inference_logs, nothing scrolls sideways at
// 390 px and axe-core finds no WCAG 2.1 A/AA violation. An API key's page shows that key's requests.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { type Browser, chromium, type Page } from "playwright-core";
import { rowsOf } from "#db/migrate.ts";
import { apiKeys, policies } from "#db/schema/index.ts";
import { writeInferenceLogs } from "#services/inference-logs/logs.ts";
import {
  axeViolations,
  chromiumPath,
  haveChromium,
  overflowProblems,
  shot,
  signIn,
} from "../dashboard/browser.ts";
import { defaultOrgId, insertDeployment } from "../management/support.ts";
import { gatewayHandler, startTestApp, type TestApp } from "../support/app.ts";
import { generateLogs } from "./support.ts";

let t: TestApp;
let server: ReturnType<typeof Bun.serve>;
let browser: Browser;
let orgId: string;
let keyId: string;

beforeAll(async () => {
  if (!haveChromium) return;
  t = await startTestApp();
  const { handle } = await gatewayHandler(t.app, "dashboard");
  server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: handle });
  orgId = await defaultOrgId(t.app.db);
  const chat = (await insertDeployment(t.app.db, orgId, { name: "support-chat" })).id;
  const embed = (await insertDeployment(t.app.db, orgId, { name: "search-embed" })).id;
  const [key] = await t.app.db
    .insert(apiKeys)
    .values({ orgId, name: "support-bot", keyHash: crypto.randomUUID(), prefix: "sk-supp" })
    .returning();
  keyId = key?.id as string;
  // A month of traffic, denser in the last day so every range has something to draw.
  const now = Date.now();
  const common = { orgId, deploymentIds: [chat, chat, embed], apiKeyIds: [keyId, null] };
  await writeInferenceLogs(
    t.app,
    generateLogs({ ...common, count: 12_000, spanMs: 30 * 86_400_000, now, seed: 7 }),
  );
  await writeInferenceLogs(
    t.app,
    generateLogs({ ...common, count: 4_000, spanMs: 86_400_000, now, seed: 8 }),
  );
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ["--no-sandbox", "--disable-dev-shm-usage"],
  });
}, 180_000);

afterAll(async () => {
  if (!haveChromium) return;
  await browser?.close();
  server?.stop(true);
  await t?.close();
});

interface Figures {
  requests: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
}

/** The figures of each row of the page's table, by deployment id ("all" for the total). */
const tableFigures = (page: Page) =>
  page.$$eval("table[data-usage-table] tr[data-deployment]", (rows) =>
    Object.fromEntries(
      rows.map((row) => {
        const read = (name: string) =>
          Number(row.querySelector(`[data-figure="${name}"]`)?.textContent?.replace(/,/g, "") ?? Number.NaN);
        return [
          row.getAttribute("data-deployment") as string,
          {
            requests: read("requests"),
            errors: read("errors"),
            input_tokens: read("input_tokens"),
            output_tokens: read("output_tokens"),
          },
        ];
      }),
    ),
  );

/** The same figures counted over the raw logs, for the page's own time window. */
async function sqlFigures(from: string, to: string, apiKeyId?: string): Promise<Record<string, Figures>> {
  const rows = rowsOf<Figures & { deployment: string }>(
    await t.app.db.execute(sql`
      select case when grouping(deployment_id) = 1 then 'all' else coalesce(deployment_id::text, 'none') end as deployment, count(*)::int as requests,
        (count(*) filter (where status >= 400))::int as errors, sum(prompt_tokens)::int as input_tokens,
        sum(completion_tokens)::int as output_tokens
      from inference_logs
      where org_id = ${orgId} and created_at >= ${from} and created_at < ${to}
        ${apiKeyId ? sql`and api_key_id = ${apiKeyId}` : sql``}
      group by rollup (deployment_id)`),
  );
  return Object.fromEntries(rows.map(({ deployment, ...figures }) => [deployment, figures]));
}

async function checkPage(page: Page, path: string, apiKeyId?: string): Promise<string[]> {
  const res = await page.goto(path);
  expect({ path, status: res?.status() }).toEqual({ path, status: 200 });
  // Five charts, each a titled image with a line drawn.
  const charts = await page.$$eval("figure.chart svg[role=img]", (svgs) =>
    svgs.map((svg) => ({
      label: svg
        .getAttribute("aria-labelledby")
        ?.split(" ")
        .map((id) => document.getElementById(id)?.textContent)
        .join(" "),
      drawn: [...svg.querySelectorAll("path.line")].some((p) => (p.getAttribute("d") ?? "").length > 10),
    })),
  );
  expect(charts.length).toBe(5);
  for (const c of charts)
    expect({ path, ...c, drawn: c.drawn }).toEqual({ path, label: c.label, drawn: true });
  const window = await page.$eval("[data-from]", (el) => ({
    from: el.getAttribute("data-from"),
    to: el.getAttribute("data-to"),
  }));
  const expected = await sqlFigures(window.from as string, window.to as string, apiKeyId);
  expect(expected.all?.requests).toBeGreaterThan(0);
  expect({ path, figures: await tableFigures(page) }).toEqual({ path, figures: expected });
  const totals = await page.$eval("[data-totals] [data-figure=requests]", (el) => el.textContent);
  expect(Number(totals?.replace(/,/g, ""))).toBe(expected.all?.requests as number);
  const problems: string[] = [];
  problems.push(...(await overflowProblems(page, path)));
  for (const v of await axeViolations(page)) problems.push(`${path}: ${v}`);
  return problems;
}

describe.skipIf(!haveChromium)("the overview with a month of logs", () => {
  for (const width of [1280, 390]) {
    test(`every range draws its charts with the logs' figures, readable at ${width} px`, async () => {
      const context = await browser.newContext({
        baseURL: server.url.origin,
        viewport: { width, height: 900 },
      });
      const page = await context.newPage();
      try {
        await signIn(page);
        const problems: string[] = [];
        for (const range of ["hour", "day", "week", "month"]) {
          problems.push(...(await checkPage(page, `/?range=${range}`)));
          if (width === 390) await shot(page, `overview-${range}-narrow`);
        }
        // The key's page: the same figures, for its requests only.
        problems.push(...(await checkPage(page, `/api-keys/${keyId}?range=month`, keyId)));
        expect(await page.locator("[data-figure=spent_month]").textContent()).toMatch(/^\d/);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    }, 120_000);
  }

  test("a deployment's link narrows the charts to it; the key list links to the key's page", async () => {
    const context = await browser.newContext({
      baseURL: server.url.origin,
      viewport: { width: 1280, height: 900 },
    });
    const page = await context.newPage();
    try {
      await signIn(page);
      await page.goto("/?range=week");
      await shot(page, "overview-week");
      const all = await page.$eval("#chart-requests-desc", (el) => el.textContent);
      await page.getByRole("link", { name: "search-embed" }).click();
      await page.waitForURL(/deployment=/);
      const one = await page.$eval("#chart-requests-desc", (el) => el.textContent);
      expect(one).toStartWith("search-embed");
      expect(one).not.toBe(all);
      await page.goto("/api-keys");
      await page.getByRole("link", { name: "support-bot" }).click();
      await page.waitForURL(new RegExp(`/api-keys/${keyId}$`));
      expect(await page.locator("h1").textContent()).toBe("API key support-bot");
      expect(await page.locator("[data-figure=spent_month]").textContent()).toContain("(no limit)");
      // A budget policy naming the key shows beside what it spent.
      await t.app.db.insert(policies).values({
        orgId,
        apiKeyId: keyId,
        policyType: "budget",
        config: { max_spend_per_month: 5000 },
      });
      await page.reload();
      expect(await page.locator("[data-figure=spent_month]").textContent()).toMatch(/ of 5,?000(\.00)? \(/);
    } finally {
      await context.close();
    }
  }, 60_000);
});
