// Membership across organizations is by invitation: an administrator adding the e-mail of another
// organization's account gets the answer a new account gets (no account-existence oracle), and the
// account becomes a member only once its holder accepts (GET /auth/invitations, accept, decline).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { auditLogs, memberships, orgInvitations } from "#db/schema/index.ts";
import type { POST as addUserRoute, GET as listUsersRoute } from "#routes/filtration/admin/users/index.ts";
import type { POST as acceptRoute } from "#routes/filtration/auth/invitations/[id]/accept.ts";
import type { GET as invitationsRoute } from "#routes/filtration/auth/invitations/index.ts";
import type { POST as loginRoute } from "#routes/filtration/auth/login.ts";
import type { POST as switchOrgRoute } from "#routes/filtration/auth/switch-org.ts";
import {
  adminPassword,
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
let adminA: string;
let orgA: string;
let orgB: string;

beforeAll(async () => {
  ({ t, handle: api } = await startGateway("filtration"));
  const admin = await loginAsAdmin(api);
  adminA = admin.access_token;
  orgA = admin.user.org_id;
  orgB = await createOrganization(t, "org-b");
}, 60_000);
afterAll(() => t.close());

const password = "a long first password";

async function add(email: string, role = "developer") {
  return call<typeof addUserRoute>(api, "POST", "/admin/users", {
    token: adminA,
    body: { email, password, role },
  });
}

async function membersOfA(): Promise<string[]> {
  const res = await call<typeof listUsersRoute>(api, "GET", "/admin/users", { token: adminA });
  return res.body.users.map((u: { email: string }) => u.email);
}

test("an unknown e-mail and another organization's account are answered alike", async () => {
  await createUser(t, api, "b-user@example.com", "admin", orgB);
  const unknown = await add("nobody-yet@example.com");
  const existing = await add("b-user@example.com");
  expect(existing.status).toBe(unknown.status);
  expect(existing.status).toBe(201);
  expect(Object.keys(existing.body).sort()).toEqual(Object.keys(unknown.body).sort());
  // Read field by field, by name.
  const existingFields: Record<string, unknown> = existing.body;
  const unknownFields: Record<string, unknown> = unknown.body;
  for (const key of Object.keys(unknown.body))
    expect(typeof existingFields[key]).toBe(typeof unknownFields[key]);
  expect(existing.body).toMatchObject({
    email: "b-user@example.com",
    role: "developer",
    totp_enabled: false,
  });
  // The audit log of A reads the same for both.
  const records = await t.app.db.select().from(auditLogs).where(eq(auditLogs.action, "user.add"));
  const details = records.filter((r) => r.outcome === "success").map((r) => JSON.stringify(r.details));
  expect(new Set(details).size).toBe(1);
  // Without a password, both are the same 400.
  const noPassword = await Promise.all(
    ["nobody-either@example.com", "b-user@example.com"].map((email) =>
      call<ErrorBody>(api, "POST", "/admin/users", { token: adminA, body: { email, role: "viewer" } }),
    ),
  );
  expect(noPassword.map((r) => r.status)).toEqual([400, 400]);
  expect(noPassword[0]?.body).toEqual(noPassword[1]?.body);
});

/** GET /admin/users as A's admin sees it. */
const listOfA = async () =>
  (await call<typeof listUsersRoute>(api, "GET", "/admin/users", { token: adminA })).body;

test("the user list afterwards tells nothing either: both are pending invitations, listed alike, until each person joins", async () => {
  await createUser(t, api, "b-other@example.com", "viewer", orgB);
  const before = await listOfA();
  const unknown = await add("brand-new@example.com", "viewer");
  const existing = await add("b-other@example.com", "viewer");
  // The same status and body but for the e-mail, the invitation's own id and the time.
  const shape = (body: Record<string, unknown>) => ({
    ...body,
    id: typeof body.id,
    email: "",
    joined_at: "",
  });
  expect(existing.status).toBe(unknown.status);
  expect(shape(existing.body)).toEqual(shape(unknown.body));
  const after = await listOfA();
  // Neither is a member yet; both are pending, with the id the add answered.
  expect(after.users).toEqual(before.users);
  const pending = (email: string) => after.invitations.find((i: { email: string }) => i.email === email);
  expect(pending("brand-new@example.com")).toMatchObject({ id: unknown.body.id, role: "viewer" });
  expect(pending("b-other@example.com")).toMatchObject({ id: existing.body.id, role: "viewer" });
  const strip = (i: Record<string, unknown>) => ({ ...i, id: typeof i.id, email: "" });
  const [a, b] = [pending("brand-new@example.com"), pending("b-other@example.com")];
  expect(strip({ ...a, invited_at: "", expires_at: "" })).toEqual(
    strip({ ...b, invited_at: "", expires_at: "" }),
  );
  // Adding either again answers alike too (the invitation renewed), not 409.
  const twice = await Promise.all([
    add("brand-new@example.com", "viewer"),
    add("b-other@example.com", "viewer"),
  ]);
  expect(twice.map((r) => r.status)).toEqual([201, 201]);

  // The new account joins at its first sign-in, with the first password given.
  const first = await call<typeof loginRoute>(api, "POST", "/auth/login", {
    body: { email: "brand-new@example.com", password },
  });
  expect(first.status).toBe(200);
  expect(first.body.user).toMatchObject({ org_id: orgA, role: "viewer" });
  // The existing account joins when it accepts.
  const b2 = await call<typeof loginRoute>(api, "POST", "/auth/login", {
    body: { email: "b-other@example.com", password: adminPassword },
  });
  expect(b2.body.user.org_id).toBe(orgB);
  const accepted = await call(api, "POST", `/auth/invitations/${existing.body.id}/accept`, {
    token: b2.body.access_token,
  });
  expect(accepted.status).toBe(200);
  const joined = await listOfA();
  expect(joined.users.map((u: { email: string }) => u.email)).toEqual(
    expect.arrayContaining(["brand-new@example.com", "b-other@example.com"]),
  );
  expect(joined.invitations.map((i: { email: string }) => i.email)).not.toContain("brand-new@example.com");
  expect(joined.invitations.map((i: { email: string }) => i.email)).not.toContain("b-other@example.com");
  // Both acceptances are in A's audit log, with the same action.
  const accepts = await t.app.db.select().from(auditLogs).where(eq(auditLogs.action, "invitation.accept"));
  expect(accepts.filter((r) => r.orgId === orgA).map((r) => r.actorLabel)).toEqual(
    expect.arrayContaining(["brand-new@example.com", "b-other@example.com"]),
  );
}, 60_000);

test("only an account's first sign-in joins: an account that has signed in before accepts itself", async () => {
  const b = await createUser(t, api, "orphan@example.com", "viewer", orgB);
  // Removed from its only organization, then invited: signing in does not join A behind its back.
  await t.app.db.delete(memberships).where(eq(memberships.userId, b.user.id));
  await add("orphan@example.com");
  const login = await call(api, "POST", "/auth/login", {
    body: { email: "orphan@example.com", password: adminPassword },
  });
  expect(login.status).toBe(401);
  expect((await listOfA()).users.map((u: { email: string }) => u.email)).not.toContain("orphan@example.com");
});

test("the invitee lists and accepts, then switches into the organization with the invited role", async () => {
  const b = await createUser(t, api, "joiner@example.com", "viewer", orgB);
  await add("joiner@example.com", "developer");
  const switchBefore = await call(api, "POST", "/auth/switch-org", {
    token: b.access_token,
    body: { org_id: orgA },
  });
  expect(switchBefore.status).toBe(404);
  const listed = await call<typeof invitationsRoute>(api, "GET", "/auth/invitations", {
    token: b.access_token,
  });
  expect(listed.status).toBe(200);
  expect(listed.body.invitations).toHaveLength(1);
  const invitation = listed.body.invitations[0];
  if (!invitation) throw new Error("no invitation listed");
  expect(invitation).toMatchObject({ org_id: orgA, org_name: "default", role: "developer" });
  const accepted = await call<typeof acceptRoute>(api, "POST", `/auth/invitations/${invitation.id}/accept`, {
    token: b.access_token,
  });
  expect(accepted.status).toBe(200);
  expect(accepted.body).toMatchObject({ id: orgA, role: "developer", active: false });
  expect(await membersOfA()).toContain("joiner@example.com");
  const switched = await call<typeof switchOrgRoute>(api, "POST", "/auth/switch-org", {
    token: b.access_token,
    body: { org_id: orgA },
  });
  expect(switched.status).toBe(200);
  expect(switched.body.user).toMatchObject({ org_id: orgA, role: "developer" });
  // Answered once: it is no longer pending, and accepting again is 404.
  expect(
    (await call<typeof invitationsRoute>(api, "GET", "/auth/invitations", { token: b.access_token })).body
      .invitations,
  ).toEqual([]);
  const again = await call(api, "POST", `/auth/invitations/${invitation.id}/accept`, {
    token: b.access_token,
  });
  expect(again.status).toBe(404);
  const audit = await t.app.db.select().from(auditLogs).where(eq(auditLogs.action, "invitation.accept"));
  expect(audit.find((r) => r.outcome === "success")).toMatchObject({ orgId: orgA });
});

test("declining deletes the invitation and makes no membership", async () => {
  const b = await createUser(t, api, "decliner@example.com", "viewer", orgB);
  await add("decliner@example.com");
  const [invitation] = (
    await call<typeof invitationsRoute>(api, "GET", "/auth/invitations", { token: b.access_token })
  ).body.invitations;
  if (!invitation) throw new Error("no invitation listed");
  const declined = await call(api, "POST", `/auth/invitations/${invitation.id}/decline`, {
    token: b.access_token,
  });
  expect(declined.status).toBe(200);
  expect(
    (await call<typeof invitationsRoute>(api, "GET", "/auth/invitations", { token: b.access_token })).body
      .invitations,
  ).toEqual([]);
  expect(await t.app.db.select().from(orgInvitations).where(eq(orgInvitations.id, invitation.id))).toEqual(
    [],
  );
  const accept = await call(api, "POST", `/auth/invitations/${invitation.id}/accept`, {
    token: b.access_token,
  });
  expect(accept.status).toBe(404);
  expect(await membersOfA()).not.toContain("decliner@example.com");
  const audit = await t.app.db.select().from(auditLogs).where(eq(auditLogs.action, "invitation.decline"));
  expect(audit.find((r) => r.outcome === "success")).toMatchObject({ orgId: orgA });
});

test("another user cannot see, accept or decline someone else's invitation", async () => {
  const invitee = await createUser(t, api, "invitee@example.com", "viewer", orgB);
  const intruder = await createUser(t, api, "intruder@example.com", "admin", orgB);
  await add("invitee@example.com");
  const [invitation] = (
    await call<typeof invitationsRoute>(api, "GET", "/auth/invitations", { token: invitee.access_token })
  ).body.invitations;
  if (!invitation) throw new Error("no invitation listed");
  expect(
    (await call<typeof invitationsRoute>(api, "GET", "/auth/invitations", { token: intruder.access_token }))
      .body.invitations,
  ).toEqual([]);
  for (const action of ["accept", "decline"]) {
    const res = await call<ErrorBody>(api, "POST", `/auth/invitations/${invitation.id}/${action}`, {
      token: intruder.access_token,
    });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("not_found");
  }
  expect(await membersOfA()).not.toContain("intruder@example.com");
  expect(await membersOfA()).not.toContain("invitee@example.com");
});

test("an expired invitation is not listed and cannot be accepted", async () => {
  const b = await createUser(t, api, "late@example.com", "viewer", orgB);
  await add("late@example.com");
  const [invitation] = (
    await call<typeof invitationsRoute>(api, "GET", "/auth/invitations", { token: b.access_token })
  ).body.invitations;
  if (!invitation) throw new Error("no invitation listed");
  await t.app.db
    .update(orgInvitations)
    .set({ expiresAt: new Date(Date.now() - 1000) })
    .where(eq(orgInvitations.id, invitation.id));
  expect(
    (await call<typeof invitationsRoute>(api, "GET", "/auth/invitations", { token: b.access_token })).body
      .invitations,
  ).toEqual([]);
  const accept = await call(api, "POST", `/auth/invitations/${invitation.id}/accept`, {
    token: b.access_token,
  });
  expect(accept.status).toBe(409);
  expect(await membersOfA()).not.toContain("late@example.com");
  // Inviting again renews it.
  await add("late@example.com", "viewer");
  const renewed = (
    await call<typeof invitationsRoute>(api, "GET", "/auth/invitations", { token: b.access_token })
  ).body.invitations;
  expect(renewed).toMatchObject([{ id: invitation.id, role: "viewer" }]);
});
