// The dashboard as a person uses it: the platform started as a real process on its embedded defaults
// (PGlite in a new data directory, its database migrated: tests/support/data-dir.ts; no Redis), and
// Debian's Chromium driven by playwright-core. Every
// page a test visits can be saved with `shot`, into tests/.artifacts/screenshots/, to be looked at.
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { AxeResults, RunOptions } from "axe-core";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { installationTag, taggedProcesses, terminate } from "#adapters/providers/local/processes.ts";
import { adminEmail, adminPassword } from "../support/app.ts";
import { migratedDataDir } from "../support/data-dir.ts";
import { type RunningPlatform, runPlatform } from "../support/process.ts";

export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** Browser tests need Debian's `chromium`; .ci/run installs it, `bun test` elsewhere skips them. */
export const haveChromium = existsSync(chromiumPath);

export const screenshotDir = join(import.meta.dir, "..", ".artifacts", "screenshots");

export interface BrowserPlatform {
  platform: RunningPlatform;
  dataDir: string;
  /** http://127.0.0.1:port of each listener. */
  dashboardUrl: string;
  inferenceUrl: string;
  filtrationUrl: string;
  orchestrationUrl: string;
  browser: Browser;
  close(): Promise<void>;
}

/**
 * Ends what a browser test's platform started, whatever state the test left it in: the platform, then
 * its llama.cpp workers (detached on purpose, so that they outlive a restart of the platform), then its
 * data directory.
 */
async function removePlatform(dataDir: string, platform: RunningPlatform | undefined): Promise<void> {
  try {
    await platform?.stop();
  } finally {
    await Promise.all(
      taggedProcesses(installationTag(dataDir)).map((p) => terminate(p.pid, undefined, 3000)),
    );
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function startBrowserPlatform(env: Record<string, string> = {}): Promise<BrowserPlatform> {
  const dataDir = await migratedDataDir("llmp-browser-");
  let platform: RunningPlatform | undefined;
  let browser: Browser | undefined;
  try {
    platform = await runPlatform(
      {
        DATA_DIR: dataDir,
        ADMIN_EMAIL: adminEmail,
        ADMIN_PASSWORD: adminPassword,
        LOG_LEVEL: "info",
        // Embedded defaults: whatever the test run is configured with, this platform uses its own PGlite.
        DATABASE_URL: "",
        REDIS_URL: "",
        ...env,
      },
      60_000,
    );
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ["--no-sandbox", "--disable-dev-shm-usage"],
    });
  } catch (error) {
    await removePlatform(dataDir, platform);
    throw error;
  }
  const running = platform;
  const url = (name: string) => `http://127.0.0.1:${running.ports[name]}`;
  const opened = browser;
  return {
    platform,
    dataDir,
    dashboardUrl: url("dashboard"),
    inferenceUrl: url("inference"),
    filtrationUrl: url("filtration"),
    orchestrationUrl: url("orchestration"),
    browser: opened,
    async close() {
      try {
        await opened.close();
      } finally {
        await removePlatform(dataDir, running);
      }
    },
  };
}

/** A new browser context (its own cookies) with a laptop-sized window, on the dashboard. */
export async function newPage(bp: BrowserPlatform): Promise<{ context: BrowserContext; page: Page }> {
  const context = await bp.browser.newContext({
    baseURL: bp.dashboardUrl,
    viewport: { width: 1366, height: 900 },
  });
  const page = await context.newPage();
  // Any CSP refusal or script error fails loudly instead of leaving a page half-working.
  page.on("console", (message) => {
    if (message.type() === "error") console.error(`[browser] ${message.text()}`);
  });
  return { context, page };
}

/** Signs in through the form (the second step appears when two-factor sign-in is on). */
export async function signIn(
  page: Page,
  email = adminEmail,
  password = adminPassword,
  totp?: () => string,
): Promise<void> {
  await page.goto("/login");
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  if (totp) {
    const code = page.getByLabel(/authenticator code/i);
    await code.waitFor();
    await code.fill(totp());
    await page.getByRole("button", { name: /verify|sign in/i }).click();
  }
  await page.waitForURL((url) => !url.pathname.startsWith("/login"));
}

/**
 * A fresh platform and a page signed in as the admin: what most browser tests start from. `dialogs`:
 * "accept" accepts every confirmation; an array also collects their messages.
 */
export async function startSignedIn(
  options: { dialogs?: "accept" | string[] } = {},
): Promise<{ bp: BrowserPlatform; context: BrowserContext; page: Page }> {
  const bp = await startBrowserPlatform();
  const { context, page } = await newPage(bp);
  const { dialogs } = options;
  if (dialogs)
    page.on("dialog", (dialog) => {
      if (dialogs !== "accept") dialogs.push(dialog.message());
      void dialog.accept();
    });
  await signIn(page);
  return { bp, context, page };
}

/** Saves a full-page screenshot as <name>.png for a person to look at. */
export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(screenshotDir, { recursive: true });
  await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });
}

/**
 * Watches the playground's answers: `answerGrowth` then gives the answer's length after each change the
 * page made to it. Every change is read from its own mutation record, so an answer whose pieces arrive
 * together (as they do on a loaded machine: one network read, one observer callback) still counts each
 * piece the page rendered; the count is that of the answer's deltas, not of the network's timing.
 */
export async function watchAnswerGrowth(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { growth: number[] };
    w.growth = [];
    const transcript = document.querySelector("[data-transcript]") as Element;
    new MutationObserver((records) => {
      for (const record of records) {
        const target = record.target instanceof Element ? record.target : record.target.parentElement;
        if (!target?.closest("[data-answer]")) continue;
        const changed = record.type === "characterData" ? record.target : record.addedNodes[0];
        const length = changed?.textContent?.length ?? 0;
        if (length > 0 && length !== w.growth[w.growth.length - 1]) w.growth.push(length);
      }
    }).observe(transcript, { childList: true, subtree: true, characterData: true });
  });
}

export const answerGrowth = (page: Page): Promise<number[]> =>
  page.evaluate(() => (window as unknown as { growth: number[] }).growth);

/** The page's window once axe-core's script is injected into it. */
interface WindowWithAxe {
  axe: { run(context: Document, options: RunOptions): Promise<AxeResults> };
}

/** What axe-core finds on the page against WCAG 2.1 A and AA, one line a rule: `rule: targets`. */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(readFileSync(require.resolve("axe-core/axe.min.js"), "utf8"));
  const result = await page.evaluate(() =>
    (window as unknown as WindowWithAxe).axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
    }),
  );
  return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/**
 * Every element wider than its container, as `path: what (edges)`. An element's container is its
 * parent's client box (inside the borders, scroll bars excluded; where the parent is no box of its own,
 * display contents or inline, the nearest ancestor that is); an element is reported when its
 * right edge passes that box's right edge, or its left edge its left one, by more than 1 px. Not
 * reported: anything inside a box meant to scroll sideways (overflow-x auto or scroll: a table in its
 * card, a code block), which the box itself is checked for instead; elements taken out of the flow
 * (position absolute or fixed, such as the skip link) and what a visually hidden box holds; text of a
 * chart (SVG) is checked against its chart's box, so an axis label cut at the edge is reported. The
 * document itself must not scroll sideways either.
 */
export async function overflowProblems(page: Page, path: string): Promise<string[]> {
  const found = await page.evaluate(() => {
    const problems: string[] = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > doc.clientWidth)
      problems.push(`document ${doc.scrollWidth} px in ${doc.clientWidth}`);
    const describe = (el: Element) =>
      `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}${
        typeof el.className === "string" && el.className
          ? `.${el.className.trim().split(/\s+/).join(".")}`
          : ""
      } "${(el.textContent ?? "").trim().slice(0, 30)}"`;
    const skipped = (el: Element): boolean => {
      for (let a = el.parentElement; a; a = a.parentElement) {
        const style = getComputedStyle(a);
        if (style.overflowX === "auto" || style.overflowX === "scroll") return true;
        if (a.classList.contains("visually-hidden")) return true;
      }
      return false;
    };
    for (const el of document.body.querySelectorAll("*")) {
      if (el instanceof SVGElement && !(el instanceof SVGTextElement)) continue;
      const style = getComputedStyle(el);
      if (style.display === "none" || style.visibility === "hidden") continue;
      if (style.position === "absolute" || style.position === "fixed") continue;
      const box = el.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      if (skipped(el)) continue;
      // A box that is no box of its own (display: contents, an inline run) holds nothing: its nearest
      // ancestor that is a box does.
      let container: Element | null = el instanceof SVGTextElement ? el.ownerSVGElement : el.parentElement;
      while (container && ["contents", "inline"].includes(getComputedStyle(container).display))
        container = container.parentElement;
      if (!container) continue;
      const outer = container.getBoundingClientRect();
      const leftEdge = outer.left + (container instanceof HTMLElement ? container.clientLeft : 0);
      const rightEdge =
        container instanceof HTMLElement && container !== document.body
          ? leftEdge + container.clientWidth
          : outer.right;
      if (box.right > rightEdge + 1 || box.left < leftEdge - 1)
        problems.push(
          `${describe(el)} [${Math.round(box.left)}, ${Math.round(box.right)}] outside ${describe(container).split(" ")[0]} [${Math.round(leftEdge)}, ${Math.round(rightEdge)}]`,
        );
    }
    return problems;
  });
  return found.map((p) => `${path}: ${p}`);
}
