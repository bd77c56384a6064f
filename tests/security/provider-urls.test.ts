// A provider's settings.base_url (and any *_url setting) makes the server call that address (issue 33,
// finding 7: nosana's and skypilot's reached 127.0.0.1). It gets the model sources' check: https, and
// a host resolving to public addresses only, unless the operator lists the host
// (PROVIDER_URL_ALLOWED_HOSTS) or allows http (PROVIDER_URL_ALLOW_HTTP). A setting stored before is
// checked again when it is used: 409 naming it, never a call and never a 500.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { providerConfigs } from "#db/schema/index.ts";
import type { POST as saveProviderRoute } from "#routes/filtration/management/config/providers.ts";
import { type OrchestrationTest, startOrchestrationTest } from "../orchestration/support.ts";
import { call, type ErrorBody } from "../support/app.ts";

const save = <R = unknown>(o: OrchestrationTest, provider: string, settings: Record<string, unknown>) =>
  call<R>(o.filtration, "POST", "/management/config/providers", {
    token: o.token,
    body: { provider, settings, credentials: { api_key: "k-0123456789", token: "t-0123456789" } },
  });

describe("by default", () => {
  let o: OrchestrationTest;
  let hits = 0;
  // A server on this machine that counts whatever reaches it.
  const local = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch() {
      hits++;
      return Response.json({ data: [] });
    },
  });
  beforeAll(async () => {
    o = await startOrchestrationTest();
  }, 60_000);
  afterAll(async () => {
    local.stop(true);
    await o.t.close();
  });

  test.each([
    ["nosana", "base_url", `http://127.0.0.1:${local.port}/api`],
    ["nosana", "base_url", `https://127.0.0.1:${local.port}/api`],
    ["skypilot", "base_url", "https://localhost:46580"],
    ["akash", "base_url", "https://169.254.169.254/latest/meta-data"],
    ["skypilot", "base_url", "https://10.1.2.3"],
    ["akash", "base_url", "https://[::1]:8443"],
    ["kubernetes", "proxy_url", "https://192.168.0.10:8001"],
    ["nosana", "base_url", "ftp://example.com"],
    ["nosana", "base_url", 42],
  ])("%s settings.%s = %p is refused", async (provider, name, value) => {
    const res = await save<ErrorBody>(o, provider, { [name]: value });
    expect(res.status).toBe(400);
    expect(res.body.error.details?.fields?.[0]?.field).toBe(`settings.${name}`);
  });

  test("a public https base URL is kept", async () => {
    const res = await save<typeof saveProviderRoute>(o, "akash", {
      base_url: "https://1.1.1.1/v1",
      bid_wait_s: 0,
    });
    expect(res.status).toBe(200);
    expect(res.body.settings.base_url).toBe("https://1.1.1.1/v1");
  });

  test("a setting stored before the check is refused when used: 409, and nothing is called", async () => {
    await save(o, "nosana", {});
    await o.t.app.db
      .update(providerConfigs)
      .set({ settings: { base_url: `http://127.0.0.1:${local.port}/api` } })
      .where(and(eq(providerConfigs.orgId, o.orgId), eq(providerConfigs.provider, "nosana")));
    const res = await call<ErrorBody>(
      o.orchestration,
      "GET",
      "/deployment/provider/resources?provider=nosana",
      {
        token: o.token,
      },
    );
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain("settings.base_url");
    expect(hits).toBe(0);
  });
});

test("PROVIDER_URL_ALLOWED_HOSTS and PROVIDER_URL_ALLOW_HTTP let the operator allow a server of its own", async () => {
  const o = await startOrchestrationTest({
    PROVIDER_URL_ALLOWED_HOSTS: "127.0.0.1:46580",
    PROVIDER_URL_ALLOW_HTTP: "true",
  });
  try {
    expect((await save(o, "skypilot", { base_url: "http://127.0.0.1:46580" })).status).toBe(200);
    // Another port of the same host is not on the list.
    expect((await save(o, "skypilot", { base_url: "http://127.0.0.1:46581" })).status).toBe(400);
  } finally {
    await o.t.close();
  }
}, 60_000);
