import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { auditLogs } from "#db/schema/index.ts";
import type { PUT as setRoleRoute } from "#routes/filtration/admin/users/[id]/role.ts";
import type { GET as listUsersRoute } from "#routes/filtration/admin/users/index.ts";
import type { GET as meRoute } from "#routes/filtration/auth/me.ts";
import {
  call,
  createUser,
  type ErrorBody,
  type Handler,
  loginAsAdmin,
  type TestApp,
} from "../support/app.ts";
import { startGateway } from "../support/callers.ts";

let t: TestApp;
let handle: Handler;
let admin: Awaited<ReturnType<typeof loginAsAdmin>>;

beforeAll(async () => {
  ({ t, handle } = await startGateway("filtration"));
  admin = await loginAsAdmin(handle);
}, 60_000);
afterAll(() => t.close());

const setRole = <R = unknown>(token: string, id: string, role: string) =>
  call<R>(handle, "PUT", `/admin/users/${id}/role`, { token, body: { role } });

describe("GET /admin/users", () => {
  test("lists the organization's users with their roles", async () => {
    await createUser(t, handle, "listed@example.com", "developer");
    const res = await call<typeof listUsersRoute>(handle, "GET", "/admin/users", {
      token: admin.access_token,
    });
    expect(res.status).toBe(200);
    expect(res.body.users).toContainEqual(
      expect.objectContaining({ email: "listed@example.com", role: "developer", totp_enabled: false }),
    );
    expect(res.body.users).toContainEqual(expect.objectContaining({ id: admin.user.id, role: "admin" }));
    expect(JSON.stringify(res.body)).not.toContain("argon2");
  });
});

describe("PUT /admin/users/{id}/role", () => {
  test("changes the role, and it applies to the user's next request", async () => {
    const user = await createUser(t, handle, "promoted@example.com", "viewer");
    expect(
      (
        await call(handle, "POST", "/admin/roles", {
          token: user.access_token,
          body: { name: "x", permissions: [] },
        })
      ).status,
    ).toBe(403);
    const res = await setRole<typeof setRoleRoute>(admin.access_token, user.user.id, "admin");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: user.user.id, email: "promoted@example.com", role: "admin" });
    const me = await call<typeof meRoute>(handle, "GET", "/auth/me", { token: user.access_token });
    expect(me.body.role).toBe("admin");
  });

  test("the last admin cannot be demoted (409); with a second admin it can", async () => {
    const { t: t2, handle: h } = await startGateway("filtration");
    try {
      const only = await loginAsAdmin(h);
      const res = await call<ErrorBody>(h, "PUT", `/admin/users/${only.user.id}/role`, {
        token: only.access_token,
        body: { role: "viewer" },
      });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe("conflict");
      const second = await createUser(t2, h, "second-admin@example.com", "admin");
      const ok = await call(h, "PUT", `/admin/users/${only.user.id}/role`, {
        token: second.access_token,
        body: { role: "viewer" },
      });
      expect(ok.status).toBe(200);
      const last = await call(h, "PUT", `/admin/users/${second.user.id}/role`, {
        token: second.access_token,
        body: { role: "developer" },
      });
      expect(last.status).toBe(409);
    } finally {
      await t2.close();
    }
  }, 60_000);

  test("two admins demoting each other at once leave one admin", async () => {
    const { t: t3, handle: h } = await startGateway("filtration");
    try {
      const a = await loginAsAdmin(h);
      const b = await createUser(t3, h, "b-admin@example.com", "admin");
      const [ab, ba] = await Promise.all([
        call(h, "PUT", `/admin/users/${b.user.id}/role`, { token: a.access_token, body: { role: "viewer" } }),
        call(h, "PUT", `/admin/users/${a.user.id}/role`, { token: b.access_token, body: { role: "viewer" } }),
      ]);
      // The loser is refused as the last admin (409), or, when its request is authorized after the
      // winner's change, as the viewer it has become (403).
      const statuses = [ab.status, ba.status].sort();
      expect(statuses[0]).toBe(200);
      expect([403, 409]).toContain(statuses[1] as number);
      const users = await call<typeof listUsersRoute>(h, "GET", "/admin/users", {
        token: ab.status === 200 ? a.access_token : b.access_token,
      });
      expect(users.body.users.filter((u: { role: string }) => u.role === "admin")).toHaveLength(1);
    } finally {
      await t3.close();
    }
  }, 60_000);

  test("an unknown role is 400; an unknown user 404; a malformed id 400", async () => {
    const user = await createUser(t, handle, "target@example.com", "viewer");
    const role = await setRole<ErrorBody>(admin.access_token, user.user.id, "wizard");
    expect(role.status).toBe(400);
    expect(role.body.error.details?.fields?.[0]?.field).toBe("role");
    expect((await setRole(admin.access_token, crypto.randomUUID(), "viewer")).status).toBe(404);
    expect((await setRole(admin.access_token, "not-a-uuid", "viewer")).status).toBe(400);
  });

  test("a developer (no users:write) gets 403", async () => {
    const dev = await createUser(t, handle, "dev-users@example.com", "developer");
    const victim = await createUser(t, handle, "victim@example.com", "viewer");
    expect((await setRole(dev.access_token, victim.user.id, "developer")).status).toBe(403);
  });

  test("a role change is audited with from and to", async () => {
    const user = await createUser(t, handle, "audited-user@example.com", "viewer");
    await setRole(admin.access_token, user.user.id, "developer");
    const rows = await t.app.db.select().from(auditLogs).where(eq(auditLogs.targetId, user.user.id));
    expect(rows.find((r) => r.action === "user.role.update")).toMatchObject({
      outcome: "success",
      actorId: admin.user.id,
      orgId: admin.user.org_id,
      details: { from: "viewer", to: "developer" },
    });
  });
});
