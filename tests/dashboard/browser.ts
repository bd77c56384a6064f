// The dashboard as a person uses it: the platform started as a real process on its embedded defaults
// (PGlite in a new data directory, no Redis), and Debian's Chromium driven by playwright-core. Every
// page a test visits can be saved with `shot`, into tests/.artifacts/screenshots/, to be looked at.
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { adminEmail, adminPassword } from "../support/app.ts";
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

export async function startBrowserPlatform(env: Record<string, string> = {}): Promise<BrowserPlatform> {
  const dataDir = mkdtempSync(join(tmpdir(), "llmp-browser-"));
  const platform = await runPlatform(
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
  const url = (name: string) => `http://127.0.0.1:${platform.ports[name]}`;
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ["--no-sandbox", "--disable-dev-shm-usage"],
  });
  return {
    platform,
    dataDir,
    dashboardUrl: url("dashboard"),
    inferenceUrl: url("inference"),
    filtrationUrl: url("filtration"),
    orchestrationUrl: url("orchestration"),
    browser,
    async close() {
      await browser.close();
      await platform.stop();
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

/** Saves a full-page screenshot as <name>.png for a person to look at. */
export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(screenshotDir, { recursive: true });
  await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });
}
