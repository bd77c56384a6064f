// POST /internal/context/resolve, and the service behind it that the inference gateway calls in process.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type {
  ModelsAnswer,
  Resolved,
  ResolvedUpstream,
  ResolveRefusal,
} from "#contracts/internal/resolve.ts";
import { deployments } from "#db/schema/index.ts";
import type { POST as modelsRoute } from "#routes/filtration/internal/context/models.ts";
import type { POST as resolveRoute } from "#routes/filtration/internal/context/resolve.ts";
import type { POST as createKey } from "#routes/filtration/management/api-keys/index.ts";
import { httpFiltration } from "#server/filtration-http-port.ts";
import { inProcessFiltration } from "#services/inference-context/in-process-port.ts";
import { resolveInferenceContext } from "#services/inference-context/resolve.ts";
import {
  call,
  createOrganization,
  createUser,
  type ErrorBody,
  type Handler,
  loginAsAdmin,
  type TestApp,
} from "../support/app.ts";
import { startGateway } from "../support/callers.ts";
import { defaultOrgId, fieldsOf, insertDeployment } from "./support.ts";

let t: TestApp;
let handle: Handler;
let admin: string;
let outsider: string;
let orgId: string;
let live: { id: string };
let other: { id: string };
let key: { key: string; id: string; prefix: string };
let scopedKey: string;
let outsiderKey: string;

beforeAll(async () => {
  ({ t, handle } = await startGateway("filtration"));
  admin = (await loginAsAdmin(handle)).access_token;
  const otherOrg = await createOrganization(t, "resolve-other");
  outsider = (await createUser(t, handle, "resolve-outsider@example.com", "admin", otherOrg)).access_token;
  orgId = await defaultOrgId(t.app.db);
  live = await insertDeployment(t.app.db, orgId, {
    name: "llama-chat",
    replicas: [
      { state: "READY", endpoint: "http://10.0.0.1:9000/v1" },
      { state: "STARTING", endpoint: "http://10.0.0.2:9000/v1" },
      { state: "READY", endpoint: "http://10.0.0.3:9000/v1" },
      { state: "READY", endpoint: null },
    ],
  });
  other = await insertDeployment(t.app.db, orgId, { name: "other-model", replicas: [] });
  await insertDeployment(t.app.db, orgId, { name: "stopped-model", status: "STOPPED" });
  await insertDeployment(t.app.db, otherOrg, {
    name: "theirs",
    replicas: [{ state: "READY", endpoint: "http://x/v1" }],
  });
  const mk = async (body: unknown, token = admin) =>
    (await call<typeof createKey>(handle, "POST", "/management/api-keys", { token, body })).body;
  key = await mk({ name: "all" });
  scopedKey = (await mk({ name: "scoped", deployment_ids: [other.id] })).key;
  outsiderKey = (await mk({ name: "theirs" }, outsider)).key;
  await call(handle, "POST", "/management/config/guardrails", {
    token: admin,
    body: { config: { input: { pii: { action: "redact" } } } },
  });
  await call(handle, "POST", "/management/config/rate_limit", {
    token: admin,
    body: { deployment_id: live.id, config: { requests_per_minute: 30 } },
  });
}, 60_000);
afterAll(() => t.close());

/** Asks to resolve; a test that knows the answer's kind names it: `resolve<Resolved>`, `resolve<ErrorBody>`. */
const resolve = <R = typeof resolveRoute>(
  body: unknown,
  internalKey: string | null = t.config.internalApiKey,
) =>
  call<R>(handle, "POST", "/internal/context/resolve", {
    body,
    headers: internalKey === null ? {} : { "x-internal-api-key": internalKey },
  });

test("a good key and model resolve to the deployment, its ready replicas and its policies", async () => {
  const res = await resolve({ api_key: key.key, model: "llama-chat" });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    valid: true,
    deployment: { id: live.id, name: "llama-chat", endpoint: "http://10.0.0.1:9000/v1", status: "RUNNING" },
    endpoints: ["http://10.0.0.1:9000/v1", "http://10.0.0.3:9000/v1"],
    // An `external` deployment is a hosted upstream: its wire format and the model sent upstream (its
    // name, as it sets no inference_model); no credential named, so no key.
    upstream: { wire: "openai-compatible", model: "llama-chat" },
    guardrail_config: { input: { pii: { action: "redact" } } },
    rag_config: {},
    rate_limit: { requests_per_minute: 30 },
    quota: null,
    prompt: null,
    org_id: orgId,
    api_key_id: key.id,
    key_prefix: key.prefix,
  });
});

test("a deployment without a ready replica resolves with no endpoint (the gateway answers 503)", async () => {
  const res = await resolve({ api_key: key.key, model: "other-model" });
  expect(res.body).toMatchObject({
    valid: true,
    deployment: { id: other.id, endpoint: null },
    endpoints: [],
  });
  expect((await resolve({ api_key: scopedKey, model: "other-model" })).body.valid).toBe(true);
});

test("every failure answers valid:false with its reason and, for a known key, that key alone", async () => {
  const revoked = (
    await call<typeof createKey>(handle, "POST", "/management/api-keys", {
      token: admin,
      body: { name: "gone" },
    })
  ).body;
  await call(handle, "DELETE", `/management/api-keys/${revoked.id}`, { token: admin });
  const failures: [string, { api_key: string; model: string }, ResolveRefusal["reason"]][] = [
    ["unknown key", { api_key: `sk-${"x".repeat(48)}`, model: "llama-chat" }, "invalid_api_key"],
    ["malformed key", { api_key: "hello", model: "llama-chat" }, "invalid_api_key"],
    ["revoked key", { api_key: revoked.key, model: "llama-chat" }, "invalid_api_key"],
    ["another organization's key", { api_key: outsiderKey, model: "llama-chat" }, "model_not_found"],
    ["unknown model", { api_key: key.key, model: "no-such-model" }, "model_not_found"],
    ["model of another organization", { api_key: key.key, model: "theirs" }, "model_not_found"],
    ["model outside the key's scope", { api_key: scopedKey, model: "llama-chat" }, "model_not_allowed"],
    ["stopped deployment", { api_key: key.key, model: "stopped-model" }, "deployment_unavailable"],
  ];
  for (const [name, body, reason] of failures) {
    const res = await resolve<ResolveRefusal>(body);
    expect(res.status, name).toBe(200);
    const { caller, ...rest } = res.body;
    expect(rest, name).toEqual({ valid: false, reason });
    // Whose key it was (for the log), and nothing of the deployment asked for.
    if (caller) expect(body.api_key.startsWith(caller.key_prefix), name).toBe(true);
    expect(caller === undefined, name).toBe(name === "unknown key" || name === "malformed key");
  }
});

/** The models answer for a key that resolves. */
type ListedModels = Extract<ModelsAnswer, { valid: true }>;

test("/internal/context/models lists what a key may call; an unknown key is valid:false", async () => {
  const models = async <R = typeof modelsRoute>(apiKey: string) =>
    (
      await call<R>(handle, "POST", "/internal/context/models", {
        headers: { "x-internal-api-key": t.config.internalApiKey },
        body: { api_key: apiKey },
      })
    ).body;
  const listed = await models<ListedModels>(scopedKey);
  expect(listed.valid).toBe(true);
  expect(listed.data.map((m: { id: string }) => m.id)).toEqual(["other-model"]);
  expect(await models("sk-nope")).toEqual({ valid: false });
});

test("in process, the reason is kept for the gateway's error codes", async () => {
  const reasons = async (apiKey: string, model: string) => {
    const r = await resolveInferenceContext(t.app, apiKey, model);
    return r.ok ? "ok" : r.reason;
  };
  expect(await reasons(key.key, "llama-chat")).toBe("ok");
  expect(await reasons("sk-nope", "llama-chat")).toBe("invalid_api_key");
  expect(await reasons(key.key, "nope")).toBe("model_not_found");
  expect(await reasons(scopedKey, "llama-chat")).toBe("model_not_allowed");
  expect(await reasons(key.key, "stopped-model")).toBe("deployment_unavailable");
});

test("a deployment asked to stop stops resolving at once; an expired key too", async () => {
  const name = "stopping-soon";
  const d = await insertDeployment(t.app.db, orgId, {
    name,
    replicas: [{ state: "READY", endpoint: "http://s/v1" }],
  });
  expect((await resolve({ api_key: key.key, model: name })).body.valid).toBe(true);
  await t.app.db.update(deployments).set({ desiredState: "stopped" }).where(eq(deployments.id, d.id));
  expect((await resolve({ api_key: key.key, model: name })).body).toMatchObject({
    valid: false,
    reason: "deployment_unavailable",
  });
  const expiring = (
    await call<typeof createKey>(handle, "POST", "/management/api-keys", {
      token: admin,
      body: { name: "expiring", expires_at: new Date(Date.now() + 60_000).toISOString() },
    })
  ).body;
  const later = { ...t.app, clock: () => new Date(Date.now() + 120_000) };
  expect((await resolveInferenceContext(later, expiring.key, "llama-chat")).ok).toBe(false);
});

test("the in-process port serves the inference gateway's calls", async () => {
  const port = inProcessFiltration(t.app);
  const resolution = await port.resolve(key.key, "llama-chat");
  expect(resolution.ok).toBe(true);
  const models = await port.models(scopedKey);
  expect(models?.map((m) => m.id)).toEqual(["other-model"]);
  expect(await port.models("sk-bad")).toBeUndefined();
  const all = (await port.models(key.key))?.map((m) => m.id);
  expect(all).toContain("llama-chat");
  expect(all).not.toContain("theirs");
});

test("without the internal key, or with a wrong one, 401", async () => {
  expect((await resolve({ api_key: key.key, model: "llama-chat" }, null)).status).toBe(401);
  expect((await resolve({ api_key: key.key, model: "llama-chat" }, "wrong-key-wrong-key")).status).toBe(401);
  const withUserToken = await call(handle, "POST", "/internal/context/resolve", {
    token: admin,
    body: { api_key: key.key, model: "llama-chat" },
  });
  expect(withUserToken.status).toBe(401);
});

test("a malformed body is 400 naming the field", async () => {
  const res = await resolve<ErrorBody>({ model: "llama-chat" });
  expect(res.status).toBe(400);
  expect(fieldsOf(res.body)).toContain("api_key");
});

test("a hosted deployment's upstream carries its named credential to an inference gateway apart, and its fallback's too", async () => {
  const secret = `sk-hosted-${crypto.randomUUID()}`;
  const saved = await call(handle, "POST", "/management/config/providers", {
    token: admin,
    body: { provider: "external", credentials: { "openai-prod": secret } },
  });
  expect(saved.status).toBe(200);
  const hosted = await insertDeployment(t.app.db, orgId, {
    name: "support-bot",
    replicas: [{ state: "READY", endpoint: "https://api.openai.com/v1" }],
  });
  await t.app.db
    .update(deployments)
    .set({ inferenceModel: "gpt-4.1-mini", configuration: { credential: "openai-prod" } })
    .where(eq(deployments.id, hosted.id));
  await call(handle, "POST", "/management/config/routing", {
    token: admin,
    body: { deployment_id: live.id, config: { fallbacks: ["support-bot"] } },
  });
  const upstream: ResolvedUpstream = { wire: "openai-compatible", model: "gpt-4.1-mini", api_key: secret };
  const asked = await resolve<Resolved>({ api_key: key.key, model: "support-bot" });
  expect(asked.body.upstream).toEqual(upstream);
  const withFallback = await resolve<Resolved>({ api_key: key.key, model: "llama-chat" });
  expect(withFallback.body.fallbacks).toEqual([
    {
      deployment: { id: hosted.id, name: "support-bot" },
      endpoints: ["https://api.openai.com/v1"],
      upstream,
      // No price of its own, and gpt-4.1-mini is in the shipped list.
      price: {
        input_price_per_million: 0.4,
        output_price_per_million: 1.6,
        cached_input_price_per_million: 0.1,
        estimated_cost_per_hour: null,
      },
    },
  ]);
  // The inference gateway apart reads it back (server/filtration-http-port.ts).
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: handle });
  try {
    const port = httpFiltration({
      baseUrl: `http://127.0.0.1:${server.port}`,
      internalApiKey: t.config.internalApiKey,
    });
    const apart = { wire: "openai-compatible" as const, model: "gpt-4.1-mini", apiKey: secret };
    const direct = await port.resolve(key.key, "support-bot");
    expect(direct.ok && direct.context.upstream).toEqual(apart);
    const viaFallback = await port.resolve(key.key, "llama-chat");
    expect(viaFallback.ok && viaFallback.context.fallbacks?.[0]).toMatchObject({
      upstream: apart,
      price: { input_price_per_million: 0.4 },
    });
  } finally {
    server.stop(true);
  }
  // The internal key guards it: without it, nothing (and so no credential).
  expect((await resolve({ api_key: key.key, model: "support-bot" }, null)).status).toBe(401);
  await call(handle, "POST", "/management/config/routing", {
    token: admin,
    body: { deployment_id: live.id, config: { fallbacks: [] } },
  });
});
