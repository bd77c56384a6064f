// Single sign-on as a person meets it in Chromium: the dashboard's sign-in page offers "Sign in with
// <name>", the identity provider (oidc-provider on a local port, its own login and consent pages) signs
// the person in, its callback lands on the dashboard signed in with the role the provider's groups map
// to; an administrator configures it on the dashboard's single sign-on page.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { GET as me } from "#routes/filtration/auth/me.ts";
import { call } from "../support/app.ts";
import { platformClient, startTestProvider, type TestProvider } from "../support/oidc-provider.ts";
import {
  axeViolations,
  type BrowserPlatform,
  haveChromium,
  newPage,
  shot,
  signIn,
  startBrowserPlatform,
} from "./browser.ts";

let bp: BrowserPlatform;
let provider: TestProvider;

beforeAll(async () => {
  if (!haveChromium) return;
  bp = await startBrowserPlatform();
  provider = await startTestProvider([`${bp.dashboardUrl}/login/sso/callback`]);
  provider.accounts.set("mia", { email: "mia@example.com", groups: ["ml-engineers"] });
}, 120_000);
afterAll(async () => {
  await bp?.close();
  await provider?.close();
});

/** The provider's login and consent pages, as a person fills them in. */
async function throughProvider(page: Page, login: string) {
  await page.waitForURL((url) => url.href.startsWith(provider.issuer));
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("anything");
  await page.locator('button[type="submit"]').click();
  const consent = page.getByRole("button", { name: "Continue" });
  await consent.waitFor();
  await consent.click();
}

test.skipIf(!haveChromium)(
  "an administrator configures the provider on the dashboard; a member signs in through it",
  async () => {
    const admin = await newPage(bp);
    await signIn(admin.page);
    await admin.page.goto("/sso");
    await admin.page.getByLabel("Name on the sign-in button").fill("Acme SSO");
    await admin.page.getByLabel("Issuer URL").fill(provider.issuer);
    await admin.page.getByLabel("Client ID").fill(platformClient.id);
    await admin.page.getByLabel("Client secret").fill(platformClient.secret);
    await admin.page.getByLabel("Groups to roles").fill("ml-engineers = developer\nplatform-admins = admin");
    await admin.page.getByRole("button", { name: "Save" }).click();
    await admin.page.waitForURL("**/sso?saved=1");
    expect(await admin.page.getByText(`${bp.dashboardUrl}/login/sso/callback`).count()).toBe(1);
    await shot(admin.page, "sso-settings");
    expect(await axeViolations(admin.page)).toEqual([]);
    await admin.context.close();

    const { context, page } = await newPage(bp);
    await page.goto("/login?next=/api-keys");
    await shot(page, "sso-sign-in-page");
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole("link", { name: "Sign in with Acme SSO" }).click();
    await throughProvider(page, "mia");
    await page.waitForURL(`${bp.dashboardUrl}/api-keys`);
    expect(await page.getByRole("heading", { name: "API keys" }).count()).toBe(1);
    await shot(page, "sso-signed-in");
    // The session is the platform's own, with the role the provider's group maps to.
    const cookie = (await context.cookies()).find((c) => c.name === "llmp_session");
    const signedIn = await call<typeof me>(
      async (r) => fetch(new URL(new URL(r.url).pathname, bp.filtrationUrl), r),
      "GET",
      "/auth/me",
      { token: decodeURIComponent(cookie?.value ?? "") },
    );
    expect(signedIn.body).toMatchObject({ email: "mia@example.com", role: "developer" });
    await context.close();
  },
  120_000,
);
