import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { inferenceLogs } from "#db/schema/index.ts";
import type { POST as createLogs } from "#routes/filtration/internal/logs/create.ts";
import type { GET as deploymentLogs } from "#routes/filtration/management/deployments/[id]/logs.ts";
import type { GET as recentLogs } from "#routes/filtration/management/deployments/recent-logs.ts";
import { call, type ErrorBody } from "../support/app.ts";
import { startWithCallers } from "../support/callers.ts";
import { fieldsOf, insertDeployment } from "./support.ts";

const { t, handle, admin, viewer, outsider, otherOrgId, orgId } = await startWithCallers("logs");
let first: string;
let second: string;
let theirs: string;

beforeAll(async () => {
  first = (await insertDeployment(t.app.db, orgId, { name: "logs-first" })).id;
  second = (await insertDeployment(t.app.db, orgId, { name: "logs-second" })).id;
  theirs = (await insertDeployment(t.app.db, otherOrgId, { name: "logs-theirs" })).id;
}, 60_000);
afterAll(() => t.close());

const create = (body: unknown, key: string | null = t.config.internalApiKey) =>
  call<typeof createLogs>(handle, "POST", "/internal/logs/create", {
    body,
    headers: key === null ? {} : { "x-internal-api-key": key },
  });

const entry = (deploymentId: string, i: number, org = orgId) => ({
  request_id: `req-${deploymentId.slice(0, 4)}-${i}`,
  org_id: org,
  deployment_id: deploymentId,
  api_key_id: crypto.randomUUID(),
  key_prefix: "sk-AbCd1234",
  model: "logs-model",
  status: 200,
  prompt_tokens: 10,
  completion_tokens: 5,
  total_tokens: 15,
  latency_ms: 12.5,
  stream: i % 2 === 0,
  guardrails: { input: { action: "allow", findings: [] } },
});

test("one entry, or a batch, is written", async () => {
  const one = await create(entry(first, 0));
  expect(one.status).toBe(201);
  expect(one.body).toEqual({ written: 1 });
  const batch = await create({ entries: Array.from({ length: 6 }, (_, i) => entry(first, i + 1)) });
  expect(batch.body).toEqual({ written: 6 });
  await create({ entries: [entry(second, 0), entry(second, 1), entry(theirs, 0, otherOrgId)] });
  // A request whose key was bad belongs to no organization.
  await create({ request_id: "req-bad-key", model: "x", status: 401, error_code: "unauthenticated" });
  const rows = await t.app.db.select().from(inferenceLogs);
  expect(rows).toHaveLength(11);
  const bad = rows.find((r) => r.requestId === "req-bad-key");
  expect(bad).toMatchObject({
    orgId: null,
    deploymentId: null,
    status: 401,
    errorCode: "unauthenticated",
    totalTokens: 0,
  });
});

test("a deployment's logs come newest first, in pages", async () => {
  const page1 = await call<typeof deploymentLogs>(
    handle,
    "GET",
    `/management/deployments/${first}/logs?limit=4`,
    {
      token: viewer,
    },
  );
  expect(page1.status).toBe(200);
  expect(page1.body.items.map((l: { request_id: string }) => l.request_id)).toEqual(
    [6, 5, 4, 3].map((i) => `req-${first.slice(0, 4)}-${i}`),
  );
  expect(page1.body.items[0]).toMatchObject({
    deployment_id: first,
    key_prefix: "sk-AbCd1234",
    model: "logs-model",
    status: 200,
    prompt_tokens: 10,
    completion_tokens: 5,
    total_tokens: 15,
    latency_ms: 12.5,
    stream: true,
    error_code: null,
    guardrails: { input: { action: "allow", findings: [] } },
  });
  expect(page1.body.next_cursor).toEqual(expect.any(String));
  const page2 = await call<typeof deploymentLogs>(
    handle,
    "GET",
    `/management/deployments/${first}/logs?limit=4&cursor=${page1.body.next_cursor}`,
    {
      token: viewer,
    },
  );
  expect(page2.body.items.map((l: { request_id: string }) => l.request_id)).toEqual(
    [2, 1, 0].map((i) => `req-${first.slice(0, 4)}-${i}`),
  );
  expect(page2.body.next_cursor).toBeNull();
});

test("recent logs span the organization's deployments and nothing of another organization", async () => {
  const mine = await call<typeof recentLogs>(handle, "GET", "/management/deployments/recent-logs", {
    token: admin,
  });
  expect(mine.status).toBe(200);
  expect(mine.body.items).toHaveLength(9);
  expect(new Set(mine.body.items.map((l) => l.deployment_id))).toEqual(new Set([first, second]));
  const theirsPage = await call<typeof recentLogs>(handle, "GET", "/management/deployments/recent-logs", {
    token: outsider,
  });
  expect(theirsPage.body.items.map((l) => l.deployment_id)).toEqual([theirs]);
  const limited = await call<typeof recentLogs>(
    handle,
    "GET",
    "/management/deployments/recent-logs?limit=2",
    {
      token: admin,
    },
  );
  expect(limited.body.items[0]?.deployment_id).toBe(second);
  expect(limited.body.next_cursor).not.toBeNull();
});

test("another organization's deployment, or none, is 404; bad paging 400; no token 401", async () => {
  expect(
    (await call(handle, "GET", `/management/deployments/${first}/logs`, { token: outsider })).status,
  ).toBe(404);
  expect(
    (await call(handle, "GET", `/management/deployments/${crypto.randomUUID()}/logs`, { token: admin }))
      .status,
  ).toBe(404);
  const cursor = await call<ErrorBody>(handle, "GET", "/management/deployments/recent-logs?cursor=abc", {
    token: admin,
  });
  expect(cursor.status).toBe(400);
  expect(fieldsOf(cursor.body)).toEqual(["query.cursor"]);
  expect(
    (await call(handle, "GET", "/management/deployments/recent-logs?limit=0", { token: admin })).status,
  ).toBe(400);
  expect((await call(handle, "GET", "/management/deployments/recent-logs")).status).toBe(401);
});

test("logs/create refuses a missing or wrong key, and malformed entries with the field", async () => {
  expect((await create(entry(first, 99), null)).status).toBe(401);
  expect((await create(entry(first, 99), "wrong-wrong-wrong-wrong")).status).toBe(401);
  const bad = await create({ entries: [{ ...entry(first, 99), org_id: "not-a-uuid" }] });
  expect(bad.status).toBe(400);
  const rows = await t.app.db.select().from(inferenceLogs);
  expect(rows.some((r) => r.requestId.endsWith("-99"))).toBe(false);
});

test("the replica that served is kept by its base URL, never with user info or a query", async () => {
  const served = {
    ...entry(first, 100),
    served_by_deployment_id: first,
    served_by: "logs-first",
    served_by_endpoint: "http://operator:s3cret@10.0.0.7:8080/v1?api_key=sk-live-123#frag",
  };
  expect((await create(served)).status).toBe(201);
  const page = await call<typeof deploymentLogs>(
    handle,
    "GET",
    `/management/deployments/${first}/logs?limit=1`,
    {
      token: admin,
    },
  );
  expect(page.body.items[0]).toMatchObject({
    request_id: served.request_id,
    served_by_endpoint: "http://10.0.0.7:8080/v1",
  });
  expect(JSON.stringify(page.body)).not.toContain("s3cret");
  expect(JSON.stringify(page.body)).not.toContain("sk-live-123");
  // Not a URL at all: nothing is kept rather than a string that might be a secret.
  expect((await create({ ...entry(first, 101), served_by_endpoint: "s3cret-token" })).status).toBe(201);
  const [row] = await t.app.db
    .select({ endpoint: inferenceLogs.servedByEndpoint })
    .from(inferenceLogs)
    .where(eq(inferenceLogs.requestId, entry(first, 101).request_id));
  expect(row?.endpoint).toBeNull();
});
