import { afterAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { rowsOf } from "#db/migrate.ts";
import { apiKeys } from "#db/schema/index.ts";
import type { DELETE as revokeKey } from "#routes/filtration/management/api-keys/[id].ts";
import type { POST as createKey, GET as listKeys } from "#routes/filtration/management/api-keys/index.ts";
import { LastUsedTracker } from "#services/api-keys/last-used.ts";
import { verifyApiKey } from "#services/api-keys/verify.ts";
import { type BodyOf, call, type ErrorBody } from "../support/app.ts";
import { startWithCallers } from "../support/callers.ts";
import { fieldsOf, insertDeployment } from "./support.ts";

const { t, handle, admin, viewer, outsider, otherOrgId, orgId } = await startWithCallers("keys");
afterAll(() => t.close());

/** Creates a key as `token`; a test that expects a refusal reads it as `create<ErrorBody>(...)`. */
const create = <R = typeof createKey>(body: unknown, token = admin) =>
  call<R>(handle, "POST", "/management/api-keys", { token, body });

/** The key `id` in a list answer; a key not listed throws, as reading a field of it did. */
function listedKey(list: BodyOf<typeof listKeys>, id: string) {
  const key = list.api_keys.find((k) => k.id === id);
  if (!key) throw new Error(`key ${id} is not listed`);
  return key;
}

test("a new key is sk- and 48 random characters, shown once, and only its hash is stored", async () => {
  const created = await create({ name: "ci" });
  expect(created.status).toBe(201);
  const { key, prefix, id } = created.body;
  expect(key).toMatch(/^sk-[A-Za-z0-9]{48}$/);
  expect(prefix).toBe(key.slice(0, 11));
  expect(created.body).toMatchObject({ name: "ci", expires_at: null, deployment_ids: [] });

  const list = await call<typeof listKeys>(handle, "GET", "/management/api-keys", { token: admin });
  expect(list.status).toBe(200);
  const listed = list.body.api_keys.find((k: { id: string }) => k.id === id);
  expect(listed).toMatchObject({
    name: "ci",
    prefix,
    last_used_at: null,
    revoked_at: null,
    expires_at: null,
  });
  expect(JSON.stringify(list.body)).not.toContain(key);

  // Nothing in the row, nor anywhere in the database's text, holds the key.
  const [row] = await t.app.db.select().from(apiKeys).where(eq(apiKeys.id, id));
  expect(row?.keyHash).toBe(createHash("sha256").update(key).digest("hex"));
  expect(JSON.stringify(row)).not.toContain(key.slice(3));
  const everywhere = rowsOf<{ n: number }>(
    await t.app.db.execute(
      sql`select count(*)::int as n from api_keys k where k::text like ${`%${key.slice(3)}%`}`,
    ),
  );
  expect(everywhere[0]?.n).toBe(0);
  const audit = rowsOf<{ n: number }>(
    await t.app.db.execute(
      sql`select count(*)::int as n from audit_logs a where a::text like ${`%${key.slice(3)}%`}`,
    ),
  );
  expect(audit[0]?.n).toBe(0);
});

test("two keys never share a value", async () => {
  const a = await create({ name: "a" });
  const b = await create({ name: "b" });
  expect(a.body.key).not.toBe(b.body.key);
});

test("bad bodies are 400 naming the field", async () => {
  expect(fieldsOf((await create<ErrorBody>({})).body)).toContain("name");
  expect(fieldsOf((await create<ErrorBody>({ name: "   " })).body)).toContain("name");
  const past = await create<ErrorBody>({ name: "old", expires_at: "2001-01-01T00:00:00Z" });
  expect(past.status).toBe(400);
  expect(fieldsOf(past.body)).toContain("expires_at");
  const unknown = await create<ErrorBody>({ name: "scoped", deployment_ids: [crypto.randomUUID()] });
  expect(unknown.status).toBe(400);
  expect(fieldsOf(unknown.body)).toContain("deployment_ids");
});

test("a key is scoped to deployments of its own organization only", async () => {
  const mine = await insertDeployment(t.app.db, orgId, { name: "keys-mine" });
  const theirs = await insertDeployment(t.app.db, otherOrgId, { name: "keys-theirs" });
  const scoped = await create({ name: "scoped", deployment_ids: [mine.id, mine.id] });
  expect(scoped.status).toBe(201);
  expect(scoped.body.deployment_ids).toEqual([mine.id]);
  const crossing = await create<ErrorBody>({ name: "crossing", deployment_ids: [mine.id, theirs.id] });
  expect(crossing.status).toBe(400);
  expect(fieldsOf(crossing.body)).toEqual(["deployment_ids"]);
  const verified = await verifyApiKey(t.app, scoped.body.key);
  expect(verified).toMatchObject({ orgId, deploymentIds: [mine.id], prefix: scoped.body.prefix });
});

test("without a token 401; a viewer may list but not create or revoke", async () => {
  expect((await call(handle, "GET", "/management/api-keys")).status).toBe(401);
  expect((await call(handle, "POST", "/management/api-keys", { body: { name: "x" } })).status).toBe(401);
  expect((await call(handle, "GET", "/management/api-keys", { token: viewer })).status).toBe(200);
  expect((await create({ name: "viewer's" }, viewer)).status).toBe(403);
  const id = (await create({ name: "victim" })).body.id;
  expect((await call(handle, "DELETE", `/management/api-keys/${id}`, { token: viewer })).status).toBe(403);
});

test("revoking keeps the row, sets revoked_at, and the key stops verifying", async () => {
  const created = await create({ name: "to-revoke" });
  expect(await verifyApiKey(t.app, created.body.key)).toBeDefined();
  const revoked = await call<typeof revokeKey>(handle, "DELETE", `/management/api-keys/${created.body.id}`, {
    token: admin,
  });
  expect(revoked.status).toBe(200);
  expect(revoked.body.revoked_at).not.toBeNull();
  expect(revoked.body).not.toHaveProperty("key");
  expect(await verifyApiKey(t.app, created.body.key)).toBeUndefined();
  const again = await call<typeof revokeKey>(handle, "DELETE", `/management/api-keys/${created.body.id}`, {
    token: admin,
  });
  expect(again.status).toBe(200);
  expect(again.body.revoked_at).toBe(revoked.body.revoked_at);
  const list = await call<typeof listKeys>(handle, "GET", "/management/api-keys", { token: admin });
  expect(listedKey(list.body, created.body.id).revoked_at).toBe(revoked.body.revoked_at);
});

test("another organization's key is 404, to read or revoke, and stays working", async () => {
  const created = await create({ name: "private" });
  const res = await call(handle, "DELETE", `/management/api-keys/${created.body.id}`, { token: outsider });
  expect(res.status).toBe(404);
  expect(
    (await call(handle, "DELETE", `/management/api-keys/${crypto.randomUUID()}`, { token: admin })).status,
  ).toBe(404);
  expect((await call(handle, "DELETE", "/management/api-keys/not-a-uuid", { token: admin })).status).toBe(
    404,
  );
  const theirs = await call<typeof listKeys>(handle, "GET", "/management/api-keys", { token: outsider });
  expect(theirs.body.api_keys.map((k: { id: string }) => k.id)).not.toContain(created.body.id);
  expect(await verifyApiKey(t.app, created.body.key)).toBeDefined();
});

test("an expired key fails verification; unknown and malformed keys too", async () => {
  const soon = new Date(Date.now() + 60_000).toISOString();
  const created = await create({ name: "short-lived", expires_at: soon });
  expect(created.body.expires_at).toBe(soon);
  expect(await verifyApiKey(t.app, created.body.key)).toBeDefined();
  const later = { ...t.app, clock: () => new Date(Date.now() + 120_000) };
  expect(await verifyApiKey(later, created.body.key)).toBeUndefined();
  expect(await verifyApiKey(t.app, `sk-${"A".repeat(48)}`)).toBeUndefined();
  expect(await verifyApiKey(t.app, "sk-short")).toBeUndefined();
  expect(await verifyApiKey(t.app, "")).toBeUndefined();
});

test("uses are written to last_used_at in one batch, not per request", async () => {
  const a = await create({ name: "used-a" });
  const b = await create({ name: "used-b" });
  const tracker = t.app.lastUsed;
  await tracker.flush();
  for (let i = 0; i < 5; i++) {
    await verifyApiKey(t.app, a.body.key);
    await verifyApiKey(t.app, b.body.key);
  }
  const before = await t.app.db.select().from(apiKeys).where(eq(apiKeys.id, a.body.id));
  expect(before[0]?.lastUsedAt).toBeNull();
  expect(tracker.size).toBe(2);
  expect(await tracker.flush()).toBe(2);
  const rows = await t.app.db.select().from(apiKeys);
  for (const id of [a.body.id, b.body.id]) {
    const used = rows.find((r) => r.id === id)?.lastUsedAt;
    expect(used).toBeInstanceOf(Date);
    expect(Math.abs((used as Date).getTime() - Date.now())).toBeLessThan(10_000);
  }
  const listed = await call<typeof listKeys>(handle, "GET", "/management/api-keys", { token: admin });
  expect(listedKey(listed.body, a.body.id).last_used_at).not.toBeNull();
});

test("a tracker issues one statement per flush, on its own after the interval, and never goes back in time", async () => {
  const key = await create({ name: "counted" });
  let statements = 0;
  // The first statement, settled: the timer's write, awaited instead of sleeping past the interval.
  const firstWritten = Promise.withResolvers<unknown>();
  const counting = new Proxy(t.app.db, {
    get(target, prop, receiver) {
      if (prop === "execute") {
        return (...args: unknown[]) => {
          statements++;
          // One promise for the tracker and the test: drizzle's query runs again on each `then`.
          const result = Promise.resolve(
            (target.execute as (...a: unknown[]) => unknown).apply(target, args),
          );
          firstWritten.resolve(result);
          return result;
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
  const tracker = new LastUsedTracker(counting, t.app.log, 50);
  const late = new Date(Date.now() + 3_600_000);
  tracker.touch(key.body.id, late);
  tracker.touch(key.body.id, new Date());
  for (const id of [crypto.randomUUID(), crypto.randomUUID()]) tracker.touch(id, new Date());
  expect(statements).toBe(0);
  await firstWritten.promise;
  expect(statements).toBe(1);
  expect(tracker.size).toBe(0);
  const [row] = await t.app.db.select().from(apiKeys).where(eq(apiKeys.id, key.body.id));
  expect(row?.lastUsedAt?.getTime()).toBe(late.getTime());
  tracker.touch(key.body.id, new Date());
  await tracker.flush();
  const [after] = await t.app.db.select().from(apiKeys).where(eq(apiKeys.id, key.body.id));
  expect(after?.lastUsedAt?.getTime()).toBe(late.getTime());
  expect(await tracker.flush()).toBe(0);
  expect(statements).toBe(2);
});
