import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { auditLogs } from "#db/schema/index.ts";
import type { GET as auditLogsRoute } from "#routes/filtration/audit/logs.ts";
import { type BodyOf, call, createUser, type Handler, loginAsAdmin, type TestApp } from "../support/app.ts";
import { startGateway } from "../support/callers.ts";

let t: TestApp;
let handle: Handler;
let admin: Awaited<ReturnType<typeof loginAsAdmin>>;
let orgId: string;

beforeAll(async () => {
  ({ t, handle } = await startGateway("filtration"));
  admin = await loginAsAdmin(handle);
  orgId = admin.user.org_id;
  // 30 records at known times, oldest first, two actors, two actions, both outcomes.
  const base = Date.parse("2031-03-01T00:00:00Z");
  await t.app.db.insert(auditLogs).values(
    Array.from({ length: 30 }, (_, i) => ({
      orgId,
      actorId: i % 2 ? admin.user.id : null,
      actorLabel: i % 2 ? "admin@example.com" : "someone@example.com",
      action: i % 3 ? "pool.create" : "deployment.delete",
      targetType: "seed",
      targetId: String(i),
      outcome: i % 5 ? ("success" as const) : ("failure" as const),
      createdAt: new Date(base + i * 60_000),
    })),
  );
  // Another organization's record, which nobody here may see.
  await t.app.db.insert(auditLogs).values({
    orgId: crypto.randomUUID(),
    action: "pool.create",
    outcome: "success",
    targetType: "seed",
    targetId: "foreign",
  });
}, 60_000);
afterAll(() => t.close());

const logs = (query: string, token = admin.access_token) =>
  call<typeof auditLogsRoute>(handle, "GET", `/audit/logs${query}`, { token });
const seeded = (items: BodyOf<typeof auditLogsRoute>["items"]) =>
  items.filter((i) => i.target_type === "seed").map((i) => i.target_id);

describe("GET /audit/logs", () => {
  test("newest first, in the organization only, with every field", async () => {
    const res = await logs("?limit=200");
    expect(res.status).toBe(200);
    const ids = seeded(res.body.items);
    expect(ids).toHaveLength(30);
    expect(ids[0]).toBe("29");
    expect(ids[29]).toBe("0");
    expect(ids).not.toContain("foreign");
    expect(res.body.next_cursor).toBeNull();
    expect(Object.keys(res.body.items[0] ?? {}).sort()).toEqual(
      [
        "action",
        "actor_id",
        "actor_label",
        "created_at",
        "details",
        "id",
        "ip",
        "outcome",
        "request_id",
        "target_id",
        "target_type",
        "user_agent",
      ].sort(),
    );
  });

  test("pages with a cursor, without gaps or repeats", async () => {
    const seen: (string | null)[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await logs(`?action=pool.create&limit=7${cursor ? `&cursor=${cursor}` : ""}`);
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(7);
      seen.push(...seeded(res.body.items));
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor && pages < 10);
    const expected = Array.from({ length: 30 }, (_, i) => i)
      .filter((i) => i % 3)
      .reverse()
      .map(String);
    expect(seen).toEqual(expected);
    expect(pages).toBe(3);
  });

  test("records of one instant, or microseconds apart within a millisecond, are paged without loss", async () => {
    // PostgreSQL keeps microseconds, a JS Date only milliseconds: the cursor must not round.
    const instants = ["123400", "123400", "123401", "123402", "123403", "123499"];
    await t.app.db.insert(auditLogs).values(
      instants.map((us, i) => ({
        orgId,
        action: "tie.same",
        outcome: "success" as const,
        targetType: "tie",
        targetId: String(i),
        createdAt: sql`${`2031-04-01T00:00:00.${us}Z`}::timestamptz`,
      })),
    );
    const seen: (string | null)[] = [];
    let cursor: string | null = null;
    do {
      const res = await logs(`?action=tie.same&limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...res.body.items.map((i) => i.target_id));
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(seen.sort()).toEqual(["0", "1", "2", "3", "4", "5"]);
  });

  test("filters by actor (id or e-mail), action (exact or prefix*), outcome and time range", async () => {
    const byId = seeded((await logs(`?limit=200&actor=${admin.user.id}`)).body.items);
    const byEmail = seeded((await logs("?limit=200&actor=Admin@Example.com")).body.items);
    expect(byId.every((id) => Number(id) % 2 === 1)).toBe(true);
    expect(byId).toHaveLength(15);
    expect(byEmail).toEqual(byId);
    expect(seeded((await logs("?limit=200&action=deployment.delete")).body.items)).toHaveLength(10);
    expect(seeded((await logs("?limit=200&action=deploy*")).body.items)).toHaveLength(10);
    expect(seeded((await logs("?limit=200&action=deploy")).body.items)).toHaveLength(0);
    expect(seeded((await logs("?limit=200&outcome=failure")).body.items)).toEqual([
      "25",
      "20",
      "15",
      "10",
      "5",
      "0",
    ]);
    const range = seeded(
      (
        await logs(
          `?limit=200&from=${encodeURIComponent("2031-03-01T00:10:00Z")}&to=${encodeURIComponent("2031-03-01T00:13:00Z")}`,
        )
      ).body.items,
    );
    expect(range).toEqual(["12", "11", "10"]);
  });

  test("sign-ins of the organization's users are in it", async () => {
    const res = await logs("?action=auth.login&outcome=success");
    expect(res.body.items.some((i) => i.actor_label === "admin@example.com")).toBe(true);
  });

  test("bad parameters are 400: limit over 200, a date that is not ISO, a forged cursor, an unknown outcome", async () => {
    expect((await logs("?limit=201")).status).toBe(400);
    expect((await logs("?limit=0")).status).toBe(400);
    expect((await logs("?from=yesterday")).status).toBe(400);
    expect((await logs("?cursor=bm90LWEtY3Vyc29y")).status).toBe(400);
    expect((await logs("?outcome=maybe")).status).toBe(400);
  });

  test("admins only: a developer and a viewer get 403, no token 401", async () => {
    const dev = await createUser(t, handle, "dev-audit@example.com", "developer");
    const viewer = await createUser(t, handle, "viewer-audit@example.com", "viewer");
    expect((await logs("", dev.access_token)).status).toBe(403);
    expect((await logs("", viewer.access_token)).status).toBe(403);
    expect((await call(handle, "GET", "/audit/logs")).status).toBe(401);
  });
});
