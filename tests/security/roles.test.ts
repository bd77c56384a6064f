import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { auditLogs, memberships, roles } from "#db/schema/index.ts";
import type {
  DELETE as deleteRoleRoute,
  PUT as updateRoleRoute,
} from "#routes/filtration/admin/roles/[name].ts";
import type { POST as createRoleRoute, GET as listRolesRoute } from "#routes/filtration/admin/roles/index.ts";
import type { GET as permissionsRoute } from "#routes/filtration/admin/roles/permissions/list.ts";
import { allPermissions, permissionCatalog } from "#services/permissions.ts";
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
let admin: string;

beforeAll(async () => {
  ({ t, handle } = await startGateway("filtration"));
  admin = (await loginAsAdmin(handle)).access_token;
}, 60_000);
afterAll(() => t.close());

// Each takes the type of the answer it is read as (the route's, or ErrorBody); unread, it is unknown.
const as = (token: string) => ({
  get: <R = unknown>(path: string) => call<R>(handle, "GET", path, { token }),
  post: <R = unknown>(path: string, body: unknown) => call<R>(handle, "POST", path, { token, body }),
  put: <R = unknown>(path: string, body: unknown) => call<R>(handle, "PUT", path, { token, body }),
  del: <R = unknown>(path: string) => call<R>(handle, "DELETE", path, { token }),
});

describe("GET /admin/roles/permissions/list", () => {
  test("is the catalog, each permission with its description", async () => {
    const res = await as(admin).get<typeof permissionsRoute>("/admin/roles/permissions/list");
    expect(res.status).toBe(200);
    expect(res.body.permissions).toHaveLength(allPermissions.length);
    expect(res.body.permissions).toContainEqual({
      name: "audit:read",
      description: permissionCatalog["audit:read"],
    });
  });
});

describe("GET /admin/roles", () => {
  test("lists the built-in roles first, with permissions and how many hold them", async () => {
    const res = await as(admin).get<typeof listRolesRoute>("/admin/roles");
    expect(res.status).toBe(200);
    const [first, second, third] = res.body.roles;
    expect([first?.name, second?.name, third?.name]).toEqual(["admin", "developer", "viewer"]);
    expect(first).toMatchObject({ builtin: true, user_count: 1 });
    expect(first?.permissions).toEqual(expect.arrayContaining(["audit:read", "roles:write"]));
    expect(third?.permissions).not.toContain("audit:read");
  });
});

describe("POST /admin/roles", () => {
  test("creates a custom role", async () => {
    const res = await as(admin).post<typeof createRoleRoute>("/admin/roles", {
      name: "auditor",
      description: "Reads the audit log",
      permissions: ["audit:read", "users:read", "audit:read"],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: "auditor",
      builtin: false,
      user_count: 0,
      description: "Reads the audit log",
    });
    expect(res.body.permissions.sort()).toEqual(["audit:read", "users:read"]);
    const list = await as(admin).get<typeof listRolesRoute>("/admin/roles");
    expect(list.body.roles.map((r) => r.name)).toContain("auditor");
  });

  test("a taken name is 409, a built-in one included", async () => {
    await as(admin).post("/admin/roles", { name: "dup", permissions: [] });
    expect((await as(admin).post("/admin/roles", { name: "dup", permissions: [] })).status).toBe(409);
    const builtin = await as(admin).post<ErrorBody>("/admin/roles", { name: "admin", permissions: [] });
    expect(builtin.status).toBe(409);
    expect(builtin.body.error.code).toBe("conflict");
  });

  test("an unknown permission is 400 naming it; a bad name is 400", async () => {
    const res = await as(admin).post<ErrorBody>("/admin/roles", {
      name: "typo",
      permissions: ["deployments:read", "deployments:nuke"],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details?.fields).toEqual([
      { field: "permissions.1", message: 'unknown permission "deployments:nuke"' },
    ]);
    expect((await as(admin).post("/admin/roles", { name: "Has Spaces", permissions: [] })).status).toBe(400);
  });

  test("a developer (no roles:write) gets 403", async () => {
    const dev = await createUser(t, handle, "dev-roles@example.com", "developer");
    expect((await as(dev.access_token).post("/admin/roles", { name: "x", permissions: [] })).status).toBe(
      403,
    );
  });

  test("nobody grants a permission they do not hold", async () => {
    // A role manager who may manage roles and users, but not read the audit log.
    await as(admin).post("/admin/roles", {
      name: "role-manager",
      permissions: ["roles:read", "roles:write", "users:read", "users:write"],
    });
    const manager = await createUser(t, handle, "manager@example.com", "viewer");
    await as(admin).put(`/admin/users/${manager.user.id}/role`, { role: "role-manager" });
    const res = await as(manager.access_token).post<ErrorBody>("/admin/roles", {
      name: "sneaky",
      permissions: ["audit:read"],
    });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain("audit:read");
    const ok = await as(manager.access_token).post("/admin/roles", {
      name: "reader",
      permissions: ["users:read"],
    });
    expect(ok.status).toBe(201);
    // Nor may it hand itself, or anyone, the admin role.
    const promote = await as(manager.access_token).put(`/admin/users/${manager.user.id}/role`, {
      role: "admin",
    });
    expect(promote.status).toBe(403);
  });
});

describe("PUT /admin/roles/{name}", () => {
  test("changes permissions and description, and the change applies to holders at once", async () => {
    await as(admin).post("/admin/roles", { name: "ops", permissions: ["deployments:read"] });
    const holder = await createUser(t, handle, "ops@example.com", "viewer");
    await as(admin).put(`/admin/users/${holder.user.id}/role`, { role: "ops" });
    expect((await as(holder.access_token).get("/admin/users")).status).toBe(403);
    const res = await as(admin).put<typeof updateRoleRoute>("/admin/roles/ops", {
      description: "Operations",
      permissions: ["deployments:read", "users:read"],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: "ops", description: "Operations", user_count: 1 });
    expect((await as(holder.access_token).get("/admin/users")).status).toBe(200);
  });

  test("renames a custom role; a rename onto a taken name is 409", async () => {
    await as(admin).post("/admin/roles", { name: "old-name", permissions: [] });
    const res = await as(admin).put<typeof updateRoleRoute>("/admin/roles/old-name", { name: "new-name" });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe("new-name");
    expect((await as(admin).put("/admin/roles/old-name", { description: "x" })).status).toBe(404);
    expect((await as(admin).put("/admin/roles/new-name", { name: "viewer" })).status).toBe(409);
  });

  test("built-in roles cannot be changed or renamed: 409", async () => {
    for (const body of [
      { permissions: ["audit:read"] },
      { name: "superuser" },
      { description: "mine now" },
    ]) {
      const res = await as(admin).put<ErrorBody>("/admin/roles/viewer", body);
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe("conflict");
    }
    const [viewer] = await t.app.db.select().from(roles).where(eq(roles.name, "viewer"));
    expect(viewer?.permissions).not.toContain("audit:read");
  });

  test("an unknown role is 404", async () => {
    expect((await as(admin).put("/admin/roles/nope", { description: "x" })).status).toBe(404);
  });
});

describe("DELETE /admin/roles/{name}", () => {
  test("deletes a custom role nobody holds", async () => {
    await as(admin).post("/admin/roles", { name: "temp", permissions: [] });
    const res = await as(admin).del<typeof deleteRoleRoute>("/admin/roles/temp");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: "temp", deleted: true });
    expect((await as(admin).del("/admin/roles/temp")).status).toBe(404);
  });

  test("a built-in role is 409", async () => {
    for (const name of ["admin", "developer", "viewer"]) {
      const res = await as(admin).del(`/admin/roles/${name}`);
      expect(res.status).toBe(409);
    }
  });

  test("a role in use is 409 and stays", async () => {
    await as(admin).post("/admin/roles", { name: "held", permissions: [] });
    const holder = await createUser(t, handle, "holder@example.com", "viewer");
    await as(admin).put(`/admin/users/${holder.user.id}/role`, { role: "held" });
    const res = await as(admin).del<ErrorBody>("/admin/roles/held");
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain("held by 1 user");
    const still = await t.app.db
      .select()
      .from(memberships)
      .innerJoin(roles, eq(roles.id, memberships.roleId))
      .where(and(eq(roles.name, "held")));
    expect(still).toHaveLength(1);
  });
});

test("every role change is audited, successes and refusals", async () => {
  await as(admin).post("/admin/roles", { name: "audited-role", permissions: ["models:read"] });
  await as(admin).put("/admin/roles/audited-role", { permissions: ["models:read", "pools:read"] });
  await as(admin).post("/admin/roles", { name: "audited-role", permissions: [] });
  await as(admin).del("/admin/roles/audited-role");
  const rows = await t.app.db.select().from(auditLogs);
  const mine = rows.filter((r) => r.targetType === "role" && r.targetId === "audited-role");
  expect(mine.map((r) => `${r.action}:${r.outcome}`).sort()).toEqual([
    "role.create:failure",
    "role.create:success",
    "role.delete:success",
    "role.update:success",
  ]);
  expect(mine.find((r) => r.action === "role.update")?.details).toEqual({
    permissions: ["models:read", "pools:read"],
  });
  expect(mine.find((r) => r.outcome === "failure")?.details).toEqual({ error: "already_exists" });
});
