import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { auditLogs, roles } from "#db/schema/index.ts";
import type { GET as listUsersRoute } from "#routes/filtration/admin/users/index.ts";
import type { GET as meRoute } from "#routes/filtration/auth/me.ts";
import type { POST as registerRoute } from "#routes/filtration/auth/register.ts";
import {
  adminPassword,
  call,
  type ErrorBody,
  type Handler,
  loginAsAdmin,
  type TestApp,
} from "../support/app.ts";
import { startGateway } from "../support/callers.ts";

let t: TestApp;
let handle: Handler;

beforeAll(async () => {
  ({ t, handle } = await startGateway("filtration", { ALLOW_REGISTRATION: "true" }));
}, 60_000);
afterAll(() => t.close());

const register = <R = unknown>(body: Record<string, unknown>) =>
  call<R>(handle, "POST", "/auth/register", { body });

describe("POST /auth/register", () => {
  test("is 403 while ALLOW_REGISTRATION is false", async () => {
    t.app.config.allowRegistration = false;
    try {
      const res = await register<ErrorBody>({ email: "closed@example.com", password: adminPassword });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("forbidden");
      expect(
        (
          await call(handle, "POST", "/auth/login", {
            body: { email: "closed@example.com", password: adminPassword },
          })
        ).status,
      ).toBe(401);
    } finally {
      t.app.config.allowRegistration = true;
    }
  });

  test("without an organization: a session as a viewer of the default organization, never more", async () => {
    const admin = await loginAsAdmin(handle);
    const res = await register<typeof registerRoute>({
      email: "New.User@Example.com",
      password: adminPassword,
    });
    expect(res.status).toBe(201);
    expect(res.body.token_type).toBe("bearer");
    expect(res.body.user).toMatchObject({
      email: "new.user@example.com",
      role: "viewer",
      org_id: admin.user.org_id,
    });
    const me = await call<typeof meRoute>(handle, "GET", "/auth/me", { token: res.body.access_token });
    expect(me.body).toMatchObject({ role: "viewer", totp_enabled: false });
    // A viewer cannot change roles (its own included) nor read the audit log.
    const promote = await call(handle, "PUT", `/admin/users/${res.body.user.id}/role`, {
      token: res.body.access_token,
      body: { role: "admin" },
    });
    expect(promote.status).toBe(403);
    expect((await call(handle, "GET", "/audit/logs", { token: res.body.access_token })).status).toBe(403);
    const login = await call(handle, "POST", "/auth/login", {
      body: { email: "new.user@example.com", password: adminPassword },
    });
    expect(login.status).toBe(200);
  });

  test("with an organization name: a new organization with its built-in roles, and the user is its admin", async () => {
    const admin = await loginAsAdmin(handle);
    const res = await register<typeof registerRoute>({
      email: "founder@example.com",
      password: adminPassword,
      organization_name: "Acme",
    });
    expect(res.status).toBe(201);
    expect(res.body.user.role).toBe("admin");
    expect(res.body.user.org_id).not.toBe(admin.user.org_id);
    const names = (await t.app.db.select().from(roles).where(eq(roles.orgId, res.body.user.org_id))).map(
      (r) => r.name,
    );
    expect(names.sort()).toEqual(["admin", "developer", "viewer"]);
    // A tenant of its own: it sees only itself.
    const users = await call<typeof listUsersRoute>(handle, "GET", "/admin/users", {
      token: res.body.access_token,
    });
    expect(users.body.users.map((u: { email: string }) => u.email)).toEqual(["founder@example.com"]);
  });

  test("a taken e-mail is 409 conflict, whatever its case", async () => {
    await register({ email: "taken@example.com", password: adminPassword });
    const res = await register<ErrorBody>({ email: "TAKEN@example.com", password: "another password" });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("conflict");
  });

  test("a taken organization name is 409, and nothing of the attempt remains", async () => {
    const res = await register({
      email: "second-founder@example.com",
      password: adminPassword,
      organization_name: "default",
    });
    expect(res.status).toBe(409);
    const login = await call(handle, "POST", "/auth/login", {
      body: { email: "second-founder@example.com", password: adminPassword },
    });
    expect(login.status).toBe(401);
  });

  test("a short password or a bad e-mail is 400 naming the field", async () => {
    const short = await register<ErrorBody>({ email: "short@example.com", password: "1234567" });
    expect(short.status).toBe(400);
    expect(short.body.error.details?.fields?.map((f) => f.field)).toContain("password");
    const bad = await register<ErrorBody>({ email: "not-an-email", password: adminPassword });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details?.fields?.map((f) => f.field)).toContain("email");
    const blank = await register({
      email: "blank@example.com",
      password: adminPassword,
      organization_name: "   ",
    });
    expect(blank.status).toBe(400);
  });

  test("is audited as auth.register in the organization joined, without the password", async () => {
    const res = await register<typeof registerRoute>({
      email: "audited-reg@example.com",
      password: adminPassword,
      organization_name: "Audited",
    });
    const [row] = await t.app.db
      .select()
      .from(auditLogs)
      .where(eq(auditLogs.actorLabel, "audited-reg@example.com"));
    expect(row).toMatchObject({
      action: "auth.register",
      outcome: "success",
      orgId: res.body.user.org_id,
      actorId: res.body.user.id,
      targetId: res.body.user.id,
    });
    expect(JSON.stringify(row)).not.toContain(adminPassword);
  });
});
