// Organization B's admin holds every permission, in B only: A's users, roles and audit log are
// invisible and untouchable, and answered as not found rather than forbidden, so nothing leaks.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { memberships, roles } from "#db/schema/index.ts";
import type { GET as listRolesRoute } from "#routes/filtration/admin/roles/index.ts";
import type { GET as listUsersRoute } from "#routes/filtration/admin/users/index.ts";
import type { GET as auditLogsRoute } from "#routes/filtration/audit/logs.ts";
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

let t: TestApp;
let handle: Handler;
let adminA: Awaited<ReturnType<typeof loginAsAdmin>>;
let userA: Awaited<ReturnType<typeof createUser>>;
let adminB: Awaited<ReturnType<typeof createUser>>;

beforeAll(async () => {
  ({ t, handle } = await startGateway("filtration"));
  adminA = await loginAsAdmin(handle);
  userA = await createUser(t, handle, "alice@a.example", "developer");
  const created = await call(handle, "POST", "/admin/roles", {
    token: adminA.access_token,
    body: { name: "a-only", permissions: ["models:read"] },
  });
  expect(created.status).toBe(201);
  const orgB = await createOrganization(t, "organization-b");
  adminB = await createUser(t, handle, "bob@b.example", "admin", orgB);
}, 60_000);
afterAll(() => t.close());

const asB = <R = unknown>(method: string, path: string, body?: unknown) =>
  call<R>(handle, method, path, { token: adminB.access_token, body });

describe("organization B's admin and organization A", () => {
  test("B's user list holds only B's users", async () => {
    const res = await asB<typeof listUsersRoute>("GET", "/admin/users");
    expect(res.status).toBe(200);
    expect(res.body.users.map((u: { email: string }) => u.email)).toEqual(["bob@b.example"]);
  });

  test("changing the role of A's user is 404, and the role stays", async () => {
    for (const role of ["viewer", "admin"]) {
      const res = await asB<ErrorBody>("PUT", `/admin/users/${userA.user.id}/role`, { role });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("not_found");
    }
    // Same answer as for a user that does not exist at all.
    const ghost = await asB<ErrorBody>("PUT", `/admin/users/${crypto.randomUUID()}/role`, { role: "viewer" });
    expect(ghost.body).toEqual(
      (await asB<ErrorBody>("PUT", `/admin/users/${userA.user.id}/role`, { role: "viewer" })).body,
    );
    const [row] = await t.app.db
      .select({ role: roles.name })
      .from(memberships)
      .innerJoin(roles, eq(roles.id, memberships.roleId))
      .where(and(eq(memberships.userId, userA.user.id), eq(memberships.orgId, adminA.user.org_id)));
    expect(row?.role).toBe("developer");
  });

  test("A's custom role is invisible, and changing or deleting it is 404", async () => {
    const list = await asB<typeof listRolesRoute>("GET", "/admin/roles");
    expect(list.body.roles.map((r: { name: string }) => r.name)).not.toContain("a-only");
    expect((await asB("PUT", "/admin/roles/a-only", { description: "taken over" })).status).toBe(404);
    expect((await asB("DELETE", "/admin/roles/a-only")).status).toBe(404);
    const [kept] = await t.app.db.select().from(roles).where(eq(roles.name, "a-only"));
    expect(kept).toMatchObject({ orgId: adminA.user.org_id, description: "" });
  });

  test("role names are per organization: B may have its own a-only", async () => {
    expect((await asB("POST", "/admin/roles", { name: "a-only", permissions: [] })).status).toBe(201);
    expect(await t.app.db.select().from(roles).where(eq(roles.name, "a-only"))).toHaveLength(2);
  });

  test("B's audit log shows none of A's records, even when asked for A's actors", async () => {
    const all = await asB<typeof auditLogsRoute>("GET", "/audit/logs?limit=200");
    expect(all.status).toBe(200);
    const labels = new Set(all.body.items.map((i) => i.actor_label));
    expect(labels.has("admin@example.com")).toBe(false);
    expect(labels.has("alice@a.example")).toBe(false);
    expect(labels.has("bob@b.example")).toBe(true);
    expect(
      (await asB<typeof auditLogsRoute>("GET", `/audit/logs?actor=${adminA.user.id}`)).body.items,
    ).toEqual([]);
    expect((await asB<typeof auditLogsRoute>("GET", "/audit/logs?actor=alice@a.example")).body.items).toEqual(
      [],
    );
  });

  test("B cannot switch into A", async () => {
    expect((await asB("POST", "/auth/switch-org", { org_id: adminA.user.org_id })).status).toBe(404);
  });

  test("and A's admin sees nothing of B either", async () => {
    const users = await call<typeof listUsersRoute>(handle, "GET", "/admin/users", {
      token: adminA.access_token,
    });
    expect(users.body.users.map((u: { email: string }) => u.email)).not.toContain("bob@b.example");
    const res = await call(handle, "PUT", `/admin/users/${adminB.user.id}/role`, {
      token: adminA.access_token,
      body: { role: "viewer" },
    });
    expect(res.status).toBe(404);
  });
});
