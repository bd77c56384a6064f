// The pool and deploy forms take everything the API does: a pool's owner, dedication, provider pool id
// and scheduling policy; a deployment's engine settings (per engine, plus raw JSON) and token prices, with a problem shown
// beside the field it concerns. Walked in Chromium to a RUNNING deployment on an `external` pool whose
// endpoint is an OpenAI-compatible server started by this test.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { GET as meRoute } from "#routes/filtration/auth/me.ts";
import type { GET as listPools } from "#routes/orchestration/deployment/listPools/[owner_id].ts";
import { fetchJson } from "../support/json.ts";
import { type BrowserPlatform, haveChromium, shot, startSignedIn } from "./browser.ts";
import { adminToken } from "./deployment.ts";

let bp: BrowserPlatform;
let page: Page;
let upstream: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  if (!haveChromium) return;
  upstream = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/v1/models")
        return Response.json({ object: "list", data: [{ id: "m", object: "model" }] });
      return Response.json({ error: { message: "not here" } }, { status: 404 });
    },
  });
  ({ bp, page } = await startSignedIn());
}, 120_000);

afterAll(async () => {
  await bp?.close();
  upstream?.stop(true);
});

test.skipIf(!haveChromium)(
  "a pool with every field of the specification, from the pools page",
  async () => {
    await page.goto("/pools");
    await page.getByLabel("Name").fill("gpu-box");
    await page.getByLabel("Provider", { exact: true }).selectOption("external");
    await page.getByLabel("Scheduling policy (JSON, optional)").fill('{"spread":"zone"}');
    await page.getByLabel("Only this pool's deployments run on its nodes").check();
    await page.getByRole("button", { name: "Create pool" }).click();
    await page.locator("#pool-rows tr", { hasText: "gpu-box" }).waitFor();
    const token = await adminToken(bp);
    const me = await fetchJson<typeof meRoute>(`${bp.filtrationUrl}/auth/me`, { token });
    const { org_id } = me.body;
    const listed = await fetchJson<typeof listPools>(
      `${bp.orchestrationUrl}/deployment/listPools/${org_id}`,
      {
        token,
      },
    );
    const pool = listed.body.pools.find((p) => p.pool_name === "gpu-box");
    expect(pool).toMatchObject({
      provider: "external",
      is_dedicated: true,
      scheduling_policy_json: '{"spread":"zone"}',
      owner_type: "org",
    });
  },
  60_000,
);

test.skipIf(!haveChromium)(
  "deploy on the external pool: the endpoints field shows only for that engine, a bad URL is refused beside it, then RUNNING",
  async () => {
    await page.goto("/deployments");
    await page.getByLabel("Engine").selectOption("openai-compatible");
    await expect(page.getByLabel("Endpoints", { exact: true }).isVisible()).resolves.toBe(true);
    await expect(page.getByLabel("Threads", { exact: true }).isVisible()).resolves.toBe(false);
    await page.getByLabel("Deployment name").fill("gpu-box-chat");
    await page.getByLabel("Pool").selectOption({ label: "gpu-box (external, Active)" });
    await page.getByLabel("Endpoints", { exact: true }).fill("not-a-url");
    await page.getByRole("button", { name: "Deploy" }).click();
    const error = page.locator("#f-configuration\\.endpoints-error");
    expect(await error.textContent()).toContain("http(s) URL");
    expect(await page.getByLabel("Endpoints", { exact: true }).inputValue()).toBe("not-a-url");
    await shot(page, "deploy-settings-error");

    await page.getByLabel("Endpoints", { exact: true }).fill(`http://127.0.0.1:${upstream.port}/v1`);
    await page.getByLabel("Price per million input tokens (optional)").fill("0.15");
    await page.getByLabel("Price per million output tokens (optional)").fill("0.6");
    await page.getByRole("button", { name: "Deploy" }).click();
    await page.waitForURL(/\/deployments\/[0-9a-f-]{36}$/);
    expect(await page.locator("dt:has-text('Token prices') + dd").textContent()).toBe(
      "0.15 in, 0.6 out, per million tokens",
    );
    await page
      .locator("#deployment-live .badge", { hasText: "RUNNING" })
      .first()
      .waitFor({ timeout: 30_000 });
    await shot(page, "deploy-settings-external-running");
  },
  90_000,
);

test.skipIf(!haveChromium)(
  "settings the form has no field for go in the JSON, and bad JSON is refused beside it",
  async () => {
    await page.goto("/deployments");
    await page.getByLabel("Engine").selectOption("llama.cpp");
    await expect(page.getByLabel("Threads", { exact: true }).isVisible()).resolves.toBe(true);
    await page.getByLabel("Deployment name").fill("json-check");
    await page.getByLabel("Other settings (JSON, optional)").fill("{threads: 2");
    await page.getByRole("button", { name: "Deploy" }).click();
    expect(await page.locator("#f-configuration_json-error").textContent()).toBe("Not valid JSON.");
    expect(await page.getByLabel("Other settings (JSON, optional)").inputValue()).toBe("{threads: 2");
  },
  60_000,
);
