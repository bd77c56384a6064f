// POST /admin/users: an administrator adds a new account with a first password; an existing account
// of another organization only gets an invitation (tests/security/invitations.test.ts); a member twice
// is 409; a developer cannot.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { POST as addUserRoute, GET as listUsersRoute } from "#routes/filtration/admin/users/index.ts";
import type { POST as loginRoute } from "#routes/filtration/auth/login.ts";
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
let api: Handler;
let admin: string;

beforeAll(async () => {
  ({ t, handle: api } = await startGateway("filtration"));
  admin = (await loginAsAdmin(api)).access_token;
}, 60_000);
afterAll(() => t.close());

test("a new account with a role signs in with its first password", async () => {
  const res = await call<typeof addUserRoute>(api, "POST", "/admin/users", {
    token: admin,
    body: { email: "New.Person@Example.com", password: "a long first password", role: "viewer" },
  });
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({ email: "new.person@example.com", role: "viewer", totp_enabled: false });
  const login = await call<typeof loginRoute>(api, "POST", "/auth/login", {
    body: { email: "new.person@example.com", password: "a long first password" },
  });
  expect(login.status).toBe(200);
  expect(login.body.user.role).toBe("viewer");
  const again = await call(api, "POST", "/admin/users", {
    token: admin,
    body: { email: "new.person@example.com", password: "another long password", role: "viewer" },
  });
  expect(again.status).toBe(409);
});

test("bad input: no password (for anyone), an unknown role, not an e-mail", async () => {
  const other = await createOrganization(t, "password-check");
  await createUser(t, api, "exists-elsewhere@example.com", "viewer", other);
  for (const [body, field] of [
    [{ email: "x@example.com", role: "viewer" }, "password"],
    [{ email: "exists-elsewhere@example.com", role: "viewer" }, "password"],
    [{ email: "x@example.com", password: "a long first password", role: "boss" }, "role"],
    [{ email: "not-an-email", password: "a long first password", role: "viewer" }, "email"],
  ] as const) {
    const res = await call<ErrorBody>(api, "POST", "/admin/users", { token: admin, body });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain(field);
  }
});

test("an account of another organization is answered alike but not yet a member; a developer may not add anyone", async () => {
  const other = await createOrganization(t, "elsewhere");
  await createUser(t, api, "outside@example.com", "admin", other);
  const added = await call(api, "POST", "/admin/users", {
    token: admin,
    body: { email: "outside@example.com", password: "a long first password", role: "developer" },
  });
  expect(added.status).toBe(201);
  const members = await call<typeof listUsersRoute>(api, "GET", "/admin/users", { token: admin });
  expect(members.body.users.map((u: { email: string }) => u.email)).not.toContain("outside@example.com");
  const developer = await createUser(t, api, "dev-adder@example.com", "developer");
  const refused = await call(api, "POST", "/admin/users", {
    token: developer.access_token,
    body: { email: "y@example.com", password: "a long first password", role: "viewer" },
  });
  expect(refused.status).toBe(403);
});
