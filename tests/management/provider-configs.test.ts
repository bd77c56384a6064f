import { afterAll, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { rowsOf } from "#db/migrate.ts";
import { providerConfigs } from "#db/schema/index.ts";
import type {
  GET as listProviders,
  POST as saveProvider,
} from "#routes/filtration/management/config/providers.ts";
import { open } from "#services/crypto/secret-box.ts";
import { maskSecret, providerCredentials } from "#services/provider-configs/config.ts";
import { call, type ErrorBody } from "../support/app.ts";
import { startWithCallers } from "../support/callers.ts";
import { fieldsOf } from "./support.ts";

const apiKey = "nos_live_5cA9dE0fB1a2C3d4E5f6";
const walletKey = "wallet-secret-0123456789abcdef";

const { t, handle, admin, viewer, outsider, otherOrgId, orgId } = await startWithCallers("prov");
afterAll(() => t.close());

/** Saves a provider's config as `token`; a test that expects a refusal reads it as `save<ErrorBody>(...)`. */
const save = <R = typeof saveProvider>(body: unknown, token = admin) =>
  call<R>(handle, "POST", "/management/config/providers", { token, body });
const list = (token = admin) =>
  call<typeof listProviders>(handle, "GET", "/management/config/providers", { token });

test("every provider is listed, unconfigured at first", async () => {
  const res = await list();
  expect(res.status).toBe(200);
  expect(res.body.providers.map((p: { provider: string }) => p.provider)).toEqual([
    "local",
    "external",
    "kubernetes",
    "skypilot",
    "akash",
    "nosana",
  ]);
  expect(res.body.providers[0]).toEqual({
    provider: "local",
    configured: false,
    settings: {},
    credentials: {},
    updated_at: null,
  });
});

test("credentials are sealed in the database row and masked in every answer", async () => {
  const res = await save({
    provider: "nosana",
    settings: { market: "nvidia-3090", network: "mainnet" },
    credentials: { api_key: apiKey, pin: "1234" },
  });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    provider: "nosana",
    configured: true,
    settings: { market: "nvidia-3090", network: "mainnet" },
    credentials: { api_key: "****E5f6", pin: "****" },
  });
  expect(JSON.stringify((await list()).body)).not.toContain(apiKey);

  const [row] = await t.app.db.select().from(providerConfigs).where(eq(providerConfigs.provider, "nosana"));
  expect(row?.credentialsSealed).toMatch(/^v1\./);
  expect(row?.credentialsSealed).not.toContain(apiKey);
  expect(JSON.parse(open(t.config.encryptionKey, row?.credentialsSealed as string))).toEqual({
    api_key: apiKey,
    pin: "1234",
  });
  const anywhere = rowsOf<{ n: number }>(
    await t.app.db.execute(
      sql`select count(*)::int as n from provider_configs p where p::text like ${`%${apiKey}%`}`,
    ),
  );
  expect(anywhere[0]?.n).toBe(0);
  const audited = rowsOf<{ n: number }>(
    await t.app.db.execute(sql`select count(*)::int as n from audit_logs a where a::text like ${"%E5f6%"}`),
  );
  expect(audited[0]?.n).toBe(0);

  expect(await providerCredentials(t.app, orgId, "nosana")).toEqual({ api_key: apiKey, pin: "1234" });
});

test("credentials left out stay; given, they replace all; {} removes them", async () => {
  await save({ provider: "akash", credentials: { mnemonic: walletKey } });
  const settingsOnly = await save({ provider: "akash", settings: { region: "eu" } });
  expect(settingsOnly.body).toMatchObject({
    settings: { region: "eu" },
    credentials: { mnemonic: "****cdef" },
  });
  expect(await providerCredentials(t.app, orgId, "akash")).toEqual({ mnemonic: walletKey });

  const replaced = await save({ provider: "akash", credentials: { token: "short" } });
  expect(replaced.body).toMatchObject({ settings: { region: "eu" }, credentials: { token: "****" } });
  expect(await providerCredentials(t.app, orgId, "akash")).toEqual({ token: "short" });

  const cleared = await save({ provider: "akash", credentials: {} });
  expect(cleared.body.credentials).toEqual({});
  expect(await providerCredentials(t.app, orgId, "akash")).toBeUndefined();
});

test("bad bodies are 400 naming the field", async () => {
  expect(fieldsOf((await save<ErrorBody>({ provider: "aws" })).body)).toContain("provider");
  expect(fieldsOf((await save<ErrorBody>({})).body)).toContain("provider");
  const badName = await save<ErrorBody>({ provider: "kubernetes", credentials: { "bad name!": "x" } });
  expect(badName.status).toBe(400);
  expect(fieldsOf(badName.body)).toEqual(["credentials.bad name!"]);
  const notString = await save({ provider: "kubernetes", credentials: { token: 42 } });
  expect(notString.status).toBe(400);
});

test("organizations do not see each other's provider configs", async () => {
  await save({ provider: "skypilot", credentials: { aws_secret: walletKey } });
  const theirs = await list(outsider);
  const skypilot = theirs.body.providers.find((p: { provider: string }) => p.provider === "skypilot");
  expect(skypilot?.configured).toBe(false);
  expect(await providerCredentials(t.app, otherOrgId, "skypilot")).toBeUndefined();
  await save({ provider: "skypilot", credentials: { aws_secret: "theirs-0123456789" } }, outsider);
  expect(await providerCredentials(t.app, orgId, "skypilot")).toEqual({ aws_secret: walletKey });
});

test("401 without a token, 403 for a viewer's write, masked reads for a viewer", async () => {
  expect((await call(handle, "GET", "/management/config/providers")).status).toBe(401);
  expect((await save({ provider: "local", settings: {} }, viewer)).status).toBe(403);
  const read = await list(viewer);
  expect(read.status).toBe(200);
  expect(JSON.stringify(read.body)).not.toContain(apiKey);
});

test("masking shows at most the last four characters of long values", () => {
  expect(maskSecret("abcdefghijklmnop")).toBe("****mnop");
  expect(maskSecret("abcdefghijk")).toBe("****");
});
