import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { GET as meRoute } from "#routes/filtration/auth/me.ts";
import type { GET as organizationsRoute } from "#routes/filtration/auth/organizations.ts";
import type { POST as switchOrgRoute } from "#routes/filtration/auth/switch-org.ts";
import {
  addMembership,
  call,
  createOrganization,
  createUser,
  type ErrorBody,
  type Handler,
  type TestApp,
} from "../support/app.ts";
import { startGateway } from "../support/callers.ts";

let t: TestApp;
let handle: Handler;
let other: string;
let stranger: string;
let user: Awaited<ReturnType<typeof createUser>>;

beforeAll(async () => {
  ({ t, handle } = await startGateway("filtration"));
  other = await createOrganization(t, "other");
  stranger = await createOrganization(t, "stranger");
  user = await createUser(t, handle, "member@example.com", "viewer");
  await addMembership(t, user.user.id, other, "admin");
}, 60_000);
afterAll(() => t.close());

describe("GET /auth/organizations", () => {
  test("lists the user's organizations with the role in each and which is active", async () => {
    const res = await call<typeof organizationsRoute>(handle, "GET", "/auth/organizations", {
      token: user.access_token,
    });
    expect(res.status).toBe(200);
    expect(res.body.organizations).toEqual([
      expect.objectContaining({ id: user.user.org_id, name: "default", role: "viewer", active: true }),
      expect.objectContaining({ id: other, name: "other", role: "admin", active: false }),
    ]);
    expect(JSON.stringify(res.body)).not.toContain(stranger);
  });

  test("401 without a token", async () => {
    expect((await call(handle, "GET", "/auth/organizations")).status).toBe(401);
  });
});

describe("POST /auth/switch-org", () => {
  test("gives tokens for the other organization, with the role held there", async () => {
    const res = await call<typeof switchOrgRoute>(handle, "POST", "/auth/switch-org", {
      token: user.access_token,
      body: { org_id: other },
    });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ org_id: other, role: "admin", email: "member@example.com" });
    const me = await call<typeof meRoute>(handle, "GET", "/auth/me", { token: res.body.access_token });
    expect(me.body).toMatchObject({ org_id: other, role: "admin" });
    const list = await call<typeof organizationsRoute>(handle, "GET", "/auth/organizations", {
      token: res.body.access_token,
    });
    expect(list.body.organizations.find((o) => o.active)?.id).toBe(other);
    // Permissions follow: an admin there may read its audit log; the viewer token may not.
    expect((await call(handle, "GET", "/audit/logs", { token: res.body.access_token })).status).toBe(200);
    expect((await call(handle, "GET", "/audit/logs", { token: user.access_token })).status).toBe(403);
  });

  test("an organization the user does not belong to and one that does not exist get the same 404", async () => {
    const foreign = await call<ErrorBody>(handle, "POST", "/auth/switch-org", {
      token: user.access_token,
      body: { org_id: stranger },
    });
    const missing = await call<ErrorBody>(handle, "POST", "/auth/switch-org", {
      token: user.access_token,
      body: { org_id: crypto.randomUUID() },
    });
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
  });

  test("a malformed id is 400; no token is 401", async () => {
    expect(
      (await call(handle, "POST", "/auth/switch-org", { token: user.access_token, body: { org_id: "x" } }))
        .status,
    ).toBe(400);
    expect((await call(handle, "POST", "/auth/switch-org", { body: { org_id: other } })).status).toBe(401);
  });

  test("a membership removed after the switch takes effect at once", async () => {
    const member = await createUser(t, handle, "leaving@example.com", "viewer");
    await addMembership(t, member.user.id, other, "developer");
    const switched = await call<typeof switchOrgRoute>(handle, "POST", "/auth/switch-org", {
      token: member.access_token,
      body: { org_id: other },
    });
    expect(switched.status).toBe(200);
    const { and, eq } = await import("drizzle-orm");
    const { memberships } = await import("#db/schema/index.ts");
    await t.app.db
      .delete(memberships)
      .where(and(eq(memberships.userId, member.user.id), eq(memberships.orgId, other)));
    expect((await call(handle, "GET", "/auth/me", { token: switched.body.access_token })).status).toBe(401);
    const refreshed = await call(handle, "POST", "/auth/refresh", {
      body: { refresh_token: switched.body.refresh_token },
    });
    expect(refreshed.status).toBe(401);
  });
});
