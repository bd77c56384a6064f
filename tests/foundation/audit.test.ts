import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { AppError } from "#core/errors.ts";
import { auditLogs, organizations } from "#db/schema/index.ts";
import { mutate } from "#services/audit/mutate.ts";
import type { RequestContext } from "#services/context.ts";
import { startTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
let ctx: RequestContext;

beforeAll(async () => {
  t = await startTestApp();
  const [org] = await t.app.db.select().from(organizations).limit(1);
  ctx = {
    ...t.app,
    requestId: "req_test",
    ip: "127.0.0.1",
    userAgent: "bun-test",
    actor: {
      userId: crypto.randomUUID(),
      email: "actor@example.com",
      orgId: org?.id as string,
      role: "admin",
      permissions: new Set(),
    },
  };
}, 60_000);
afterAll(() => t.close());

test("a successful mutation and its audit record commit together", async () => {
  const created = await mutate(ctx, "organization.create", undefined, async (tx) => {
    const [row] = await tx.insert(organizations).values({ name: "audited" }).returning();
    return { result: row, target: { type: "organization", id: row?.id } };
  });
  const [record] = await t.app.db
    .select()
    .from(auditLogs)
    .where(eq(auditLogs.targetId, created?.id as string));
  expect(record).toMatchObject({
    action: "organization.create",
    outcome: "success",
    actorLabel: "actor@example.com",
    ip: "127.0.0.1",
    userAgent: "bun-test",
    requestId: "req_test",
    orgId: ctx.actor?.orgId,
  });
});

test("a failed mutation leaves nothing half-written and is recorded as a failure", async () => {
  const attempt = mutate(ctx, "organization.create", { type: "organization" }, async (tx) => {
    await tx.insert(organizations).values({ name: "half-written" });
    throw new AppError("already_exists", "simulated failure after a write");
  });
  await expect(attempt).rejects.toThrow("simulated failure");
  expect(
    await t.app.db.select().from(organizations).where(eq(organizations.name, "half-written")),
  ).toHaveLength(0);
  const failures = await t.app.db.select().from(auditLogs).where(eq(auditLogs.outcome, "failure"));
  expect(failures).toHaveLength(1);
  expect(failures[0]).toMatchObject({ action: "organization.create", details: { error: "already_exists" } });
});
