import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { policyDefaults } from "#core/policies.ts";
import { knowledgeCollections, promptTemplates } from "#db/schema/index.ts";
import type {
  DELETE as deletePolicy,
  GET as getPolicy,
  POST as setPolicy,
} from "#routes/filtration/management/config/[policy_type].ts";
import { effectivePolicies } from "#services/policies/effective.ts";
import { call, type ErrorBody } from "../support/app.ts";
import { startWithCallers } from "../support/callers.ts";
import { fieldsOf, insertDeployment } from "./support.ts";

const { t, handle, admin, viewer, outsider, otherOrgId, orgId } = await startWithCallers("policy");
let deploymentId: string;
let otherDeploymentId: string;
let collectionId: string;
let templateId: string;
let otherTemplateId: string;

beforeAll(async () => {
  deploymentId = (await insertDeployment(t.app.db, orgId, { name: "policy-dep" })).id;
  otherDeploymentId = (await insertDeployment(t.app.db, otherOrgId, { name: "policy-dep" })).id;
  const [collection] = await t.app.db
    .insert(knowledgeCollections)
    .values({ orgId, name: "docs" })
    .returning();
  collectionId = collection?.id as string;
  const [template] = await t.app.db.insert(promptTemplates).values({ orgId, name: "tpl" }).returning();
  templateId = template?.id as string;
  const [other] = await t.app.db
    .insert(promptTemplates)
    .values({ orgId: otherOrgId, name: "tpl" })
    .returning();
  otherTemplateId = other?.id as string;
}, 60_000);
afterAll(() => t.close());

/** Sets a policy as `token`; a test that expects a refusal reads it as `set<ErrorBody>(...)`. */
const set = <R = typeof setPolicy>(type: string, body: unknown, token = admin) =>
  call<R>(handle, "POST", `/management/config/${type}`, { token, body });
/** Reads a policy as `token`; `get<ErrorBody>(...)` for a refusal. */
const get = <R = typeof getPolicy>(type: string, deployment?: string, token = admin) =>
  call<R>(handle, "GET", `/management/config/${type}${deployment ? `?deployment_id=${deployment}` : ""}`, {
    token,
  });

test("with nothing set, GET answers the defaults with source default and no updated_at", async () => {
  for (const type of ["rate_limit", "quota", "guardrails", "rag", "prompt"] as const) {
    const res = await get(type);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      policy_type: type,
      deployment_id: null,
      config: policyDefaults[type],
      updated_at: null,
      source: "default",
    });
  }
});

test("an organization-wide policy applies to its deployments until one sets its own", async () => {
  const orgWide = await set("rate_limit", { config: { requests_per_minute: 60 } });
  expect(orgWide.status).toBe(200);
  expect(orgWide.body).toMatchObject({
    policy_type: "rate_limit",
    deployment_id: null,
    source: "organization",
  });
  // A null updated_at parses as NaN, as `null` did before the body was typed.
  expect(Date.parse(orgWide.body.updated_at ?? "")).not.toBeNaN();

  const inherited = await get("rate_limit", deploymentId);
  expect(inherited.body).toMatchObject({
    deployment_id: deploymentId,
    config: { requests_per_minute: 60 },
    source: "organization",
  });

  const own = await set("rate_limit", { deployment_id: deploymentId, config: { tokens_per_minute: 1000 } });
  expect(own.status).toBe(200);
  expect(own.body).toMatchObject({
    deployment_id: deploymentId,
    source: "deployment",
    config: { tokens_per_minute: 1000 },
  });
  expect((await get("rate_limit", deploymentId)).body.config).toEqual({ tokens_per_minute: 1000 });
  expect((await get("rate_limit")).body.config).toEqual({ requests_per_minute: 60 });

  // Setting again replaces (one row per scope).
  await set("rate_limit", { config: { requests_per_minute: 120 } });
  expect((await get("rate_limit")).body.config).toEqual({ requests_per_minute: 120 });

  const effective = await effectivePolicies(t.app.db, orgId, deploymentId);
  expect(effective.rate_limit).toEqual({ tokens_per_minute: 1000 });
  expect((await effectivePolicies(t.app.db, orgId, undefined)).rate_limit).toEqual({
    requests_per_minute: 120,
  });

  const removed = await call<typeof deletePolicy>(
    handle,
    "DELETE",
    `/management/config/rate_limit?deployment_id=${deploymentId}`,
    {
      token: admin,
    },
  );
  expect(removed.status).toBe(200);
  expect((await get("rate_limit", deploymentId)).body).toMatchObject({ source: "organization" });
  const again = await call(handle, "DELETE", `/management/config/rate_limit?deployment_id=${deploymentId}`, {
    token: admin,
  });
  expect(again.status).toBe(404);
});

test("effectivePolicies merges every type: the deployment's own per type, the organization's otherwise", async () => {
  await set("quota", { config: { requests_per_day: 1000, tokens_per_day: 50_000 } });
  await set("guardrails", {
    deployment_id: deploymentId,
    config: { input: { pii: { action: "redact" }, prompt_injection: { action: "block", threshold: 0.7 } } },
  });
  await set("prompt", { deployment_id: deploymentId, config: { template_id: templateId } });
  const effective = await effectivePolicies(t.app.db, orgId, deploymentId);
  expect(effective.quota).toEqual({ requests_per_day: 1000, tokens_per_day: 50_000 });
  expect(effective.guardrails).toEqual({
    input: { pii: { action: "redact" }, prompt_injection: { action: "block", threshold: 0.7 } },
  });
  expect(effective.prompt).toEqual({ template_id: templateId });
  expect(effective.rag).toBeUndefined();
  // Another organization sees none of it.
  expect(await effectivePolicies(t.app.db, otherOrgId, otherDeploymentId)).toEqual({});
});

describe("malformed configs are 400 naming the field", () => {
  const cases: [string, unknown, string][] = [
    ["rate_limit", { requests_per_minute: 0 }, "config.requests_per_minute"],
    ["rate_limit", { requests_per_minute: 1.5 }, "config.requests_per_minute"],
    ["rate_limit", { requests_per_second: 5 }, "config.requests_per_second"],
    ["quota", { tokens_per_day: "lots" }, "config.tokens_per_day"],
    ["guardrails", { input: { pii: { action: "shout" } } }, "config.input.pii.action"],
    [
      "guardrails",
      { input: { toxicity: { action: "block", threshold: 2 } } },
      "config.input.toxicity.threshold",
    ],
    ["guardrails", { input: { toxicity: { action: "redact" } } }, "config.input.toxicity.action"],
    ["guardrails", { output: { mode: "later" } }, "config.output.mode"],
    ["guardrails", { output: { prompt_injection: { action: "block" } } }, "config.output.prompt_injection"],
    ["rag", { top_k: 3 }, "config.collection_ids"],
    ["rag", { collection_ids: ["nope"] }, "config.collection_ids.0"],
    ["rag", { collection_ids: [], top_k: 0 }, "config.top_k"],
    ["rag", { collection_ids: [crypto.randomUUID()] }, "config.collection_ids"],
    ["prompt", {}, "config.template_id"],
    ["prompt", { template_id: crypto.randomUUID() }, "config.template_id"],
  ];
  test.each(cases)("%s %j", async (type, config, field) => {
    const res = await set<ErrorBody>(type, { config });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("validation_error");
    expect(fieldsOf(res.body)).toContain(field);
  });

  test("a template or collection of another organization is refused like an unknown one", async () => {
    const res = await set<ErrorBody>("prompt", { config: { template_id: otherTemplateId } });
    expect(res.status).toBe(400);
    expect(fieldsOf(res.body)).toEqual(["config.template_id"]);
  });

  test("valid rag and prompt configs are stored as given", async () => {
    const rag = await set("rag", { config: { collection_ids: [collectionId], top_k: 5, min_score: 0.2 } });
    expect(rag.status).toBe(200);
    expect(rag.body.config).toEqual({ collection_ids: [collectionId], top_k: 5, min_score: 0.2 });
    const none = await set("prompt", { config: { template_id: null } });
    expect(none.status).toBe(200);
  });

  test("config missing or not an object", async () => {
    expect(fieldsOf((await set<ErrorBody>("quota", {})).body)).toContain("config");
    const list = await set<ErrorBody>("quota", { config: [1] });
    expect(list.status).toBe(400);
    expect(fieldsOf(list.body).every((f) => f.startsWith("config"))).toBe(true);
  });
});

test("an unknown policy type is 400 naming it, for reads and writes", async () => {
  for (const res of [
    await get<ErrorBody>("speed_limit"),
    await set<ErrorBody>("speed_limit", { config: {} }),
  ]) {
    expect(res.status).toBe(400);
    expect(fieldsOf(res.body)).toEqual(["params.policy_type"]);
  }
});

test("a deployment of another organization, or none, is 404", async () => {
  for (const id of [otherDeploymentId, crypto.randomUUID(), "not-a-uuid"]) {
    expect((await set("quota", { deployment_id: id, config: {} })).status).toBe(404);
    expect((await get("quota", id)).status).toBe(404);
  }
  // And the outsider cannot read this organization's policy through their own deployment id either.
  const theirs = await get("quota", deploymentId, outsider);
  expect(theirs.status).toBe(404);
});

test("401 without a token, 403 for a viewer's write, 200 for a viewer's read", async () => {
  expect((await call(handle, "GET", "/management/config/quota")).status).toBe(401);
  expect((await set("quota", { config: {} }, viewer)).status).toBe(403);
  expect((await get("quota", undefined, viewer)).status).toBe(200);
});
