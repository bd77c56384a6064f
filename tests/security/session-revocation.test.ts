// Sessions revoked whole: an access token carries its session (`sid`, the refresh-token family of its
// sign-in), and every cause that ends a session — refresh-token reuse, sign-out (API and dashboard), a
// password change, removal from the organization — refuses the access tokens already
// handed out within a second (here: on the very next request) on the filtration and orchestration
// gateways, the dashboard and the gRPC port, which all verify through one function.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as grpc from "@grpc/grpc-js";
import { csrfCookie } from "#routes/dashboard/_shared/csrf.ts";
import type { DELETE as removeUserRoute } from "#routes/filtration/admin/users/[id]/index.ts";
import type { GET as listUsersRoute } from "#routes/filtration/admin/users/index.ts";
import type { POST as loginRoute } from "#routes/filtration/auth/login.ts";
import type { POST as logoutRoute } from "#routes/filtration/auth/logout.ts";
import type { GET as meRoute } from "#routes/filtration/auth/me.ts";
import type { POST as passwordRoute } from "#routes/filtration/auth/password.ts";
import type { POST as refreshRoute } from "#routes/filtration/auth/refresh.ts";
import { accessTokenSeconds, signToken } from "#services/auth/tokens.ts";
import { connectPlatformGrpc, type TestClient } from "../grpc/support.ts";
import { adminPassword, call, createUser, type Handler, loginAsAdmin, type TestApp } from "../support/app.ts";
import { startGateways } from "../support/callers.ts";

const pools = "llmplatform.orchestration.v1.ComputePoolManagerService";
let t: TestApp;
let filtration: Handler;
let orchestration: Handler;
let dashboard: Handler;
let closeGrpc: (() => Promise<void>) | undefined;
let client: TestClient;
let admin: string;

beforeAll(async () => {
  let handlers: Record<"filtration" | "orchestration" | "dashboard", Handler>;
  ({ t, handlers } = await startGateways(["filtration", "orchestration", "dashboard"]));
  ({ filtration, orchestration, dashboard } = handlers);
  ({ client, close: closeGrpc } = await connectPlatformGrpc(t.app));
  admin = (await loginAsAdmin(filtration)).access_token;
}, 60_000);
afterAll(async () => {
  await closeGrpc?.();
  await t?.close();
});

/** The answer of each entry point to an access token. */
async function answers(token: string, orgId: string) {
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${token}`);
  const [me, listPools, page, rpc] = await Promise.all([
    call(filtration, "GET", "/auth/me", { token }),
    call(orchestration, "GET", `/deployment/listPools/${orgId}`, { token }),
    dashboard(new Request("http://localhost/", { headers: { cookie: `llmp_session=${token}` } })),
    client.unary(pools, "ListPools", {}, metadata).then(
      () => grpc.status.OK,
      (e: grpc.ServiceError) => e.code,
    ),
  ]);
  return { filtration: me.status, orchestration: listPools.status, dashboard: page.status, grpc: rpc };
}

const served = { filtration: 200, orchestration: 200, dashboard: 200, grpc: grpc.status.OK };
// The dashboard sends a signed-out browser to its sign-in page.
const refused = { filtration: 401, orchestration: 401, dashboard: 303, grpc: grpc.status.UNAUTHENTICATED };

async function expectRefusedWithinASecond(token: string, orgId: string, revokedAt: number) {
  expect(await answers(token, orgId)).toEqual(refused);
  expect(performance.now() - revokedAt).toBeLessThan(1000);
}

const login = async (email: string, password = adminPassword) => {
  const res = await call<typeof loginRoute>(filtration, "POST", "/auth/login", { body: { email, password } });
  expect(res.status).toBe(200);
  return res.body;
};

describe("each cause ends the session's access tokens at once", () => {
  test("refresh-token reuse: the thief's and the owner's access tokens die with the family", async () => {
    const first = await createUser(t, filtration, "reused@example.com", "developer");
    const orgId = first.user.org_id;
    expect(await answers(first.access_token, orgId)).toEqual(served);
    const rotated = await call<typeof refreshRoute>(filtration, "POST", "/auth/refresh", {
      body: { refresh_token: first.refresh_token },
    });
    expect(rotated.status).toBe(200);
    const replay = await call(filtration, "POST", "/auth/refresh", {
      body: { refresh_token: first.refresh_token },
    });
    const revokedAt = performance.now();
    expect(replay.status).toBe(401);
    await expectRefusedWithinASecond(first.access_token, orgId, revokedAt);
    expect(await answers(rotated.body.access_token, orgId)).toEqual(refused);
  }, 30_000);

  test("sign-out ends that session only; another sign-in of the same user keeps working", async () => {
    const session = await createUser(t, filtration, "leaving@example.com", "viewer");
    const other = await login("leaving@example.com");
    const orgId = session.user.org_id;
    const out = await call<typeof logoutRoute>(filtration, "POST", "/auth/logout", {
      token: session.access_token,
    });
    const revokedAt = performance.now();
    expect(out).toMatchObject({ status: 200, body: { signed_out: true } });
    await expectRefusedWithinASecond(session.access_token, orgId, revokedAt);
    const refresh = await call(filtration, "POST", "/auth/refresh", {
      body: { refresh_token: session.refresh_token },
    });
    expect(refresh.status).toBe(401);
    expect(await answers(other.access_token, orgId)).toEqual(served);
  }, 30_000);

  test("the dashboard's sign-out ends the session of its cookies", async () => {
    const session = await createUser(t, filtration, "browser@example.com", "viewer");
    const csrf = "c".repeat(32);
    const out = await dashboard(
      new Request("http://localhost/logout", {
        method: "POST",
        headers: {
          cookie: `llmp_session=${session.access_token}; llmp_refresh=${session.refresh_token}; ${csrfCookie}=${csrf}`,
          "content-type": "application/x-www-form-urlencoded",
          origin: "http://localhost",
        },
        body: `_csrf=${csrf}`,
      }),
    );
    const revokedAt = performance.now();
    expect(out.status).toBe(303);
    await expectRefusedWithinASecond(session.access_token, session.user.org_id, revokedAt);
  }, 30_000);

  test("a password change ends every session of the user and answers a new one", async () => {
    const first = await createUser(t, filtration, "rotating@example.com", "developer");
    const second = await login("rotating@example.com");
    const orgId = first.user.org_id;
    const wrong = await call(filtration, "POST", "/auth/password", {
      token: first.access_token,
      body: { current_password: "not my password", new_password: "a brand new passphrase" },
    });
    expect(wrong.status).toBe(400);
    expect(await answers(first.access_token, orgId)).toEqual(served);
    const changed = await call<typeof passwordRoute>(filtration, "POST", "/auth/password", {
      token: first.access_token,
      body: { current_password: adminPassword, new_password: "a brand new passphrase" },
    });
    const revokedAt = performance.now();
    expect(changed.status).toBe(200);
    await expectRefusedWithinASecond(first.access_token, orgId, revokedAt);
    expect(await answers(second.access_token, orgId)).toEqual(refused);
    expect(await answers(changed.body.access_token, orgId)).toEqual(served);
    const old = await call(filtration, "POST", "/auth/login", {
      body: { email: "rotating@example.com", password: adminPassword },
    });
    expect(old.status).toBe(401);
    await login("rotating@example.com", "a brand new passphrase");
  }, 30_000);

  test("removal from the organization", async () => {
    const session = await createUser(t, filtration, "removed@example.com", "developer");
    const removed = await call<typeof removeUserRoute>(
      filtration,
      "DELETE",
      `/admin/users/${session.user.id}`,
      {
        token: admin,
      },
    );
    const revokedAt = performance.now();
    expect(removed).toMatchObject({ status: 200, body: { id: session.user.id, deleted: true } });
    await expectRefusedWithinASecond(session.access_token, session.user.org_id, revokedAt);
    const users = await call<typeof listUsersRoute>(filtration, "GET", "/admin/users", { token: admin });
    expect(users.body.users.map((u: { email: string }) => u.email)).not.toContain("removed@example.com");
    const again = await call(filtration, "DELETE", `/admin/users/${session.user.id}`, { token: admin });
    expect(again.status).toBe(404);
  }, 30_000);

  test("a new role applies to the tokens already handed out from their next request", async () => {
    const session = await createUser(t, filtration, "demoted@example.com", "developer");
    const createKey = () =>
      call(filtration, "POST", "/management/api-keys", { token: session.access_token, body: { name: "k" } });
    expect((await createKey()).status).toBe(201);
    const changed = await call(filtration, "PUT", `/admin/users/${session.user.id}/role`, {
      token: admin,
      body: { role: "viewer" },
    });
    expect(changed.status).toBe(200);
    // Not signed out (permissions are read on every request), but no longer allowed to write.
    expect((await createKey()).status).toBe(403);
    expect(await answers(session.access_token, session.user.org_id)).toEqual(served);
  }, 30_000);
});

test("the last admin cannot be removed", async () => {
  const me = await call<typeof meRoute>(filtration, "GET", "/auth/me", { token: admin });
  const res = await call(filtration, "DELETE", `/admin/users/${me.body.id}`, { token: admin });
  expect(res.status).toBe(409);
}, 30_000);

test("an access token without a session (signed before sessions were carried) is refused", async () => {
  const me = await call<typeof meRoute>(filtration, "GET", "/auth/me", { token: admin });
  const legacy = await signToken(
    t.app.config.jwtSecret,
    { sub: me.body.id, org: me.body.org_id, typ: "access" },
    accessTokenSeconds,
    new Date(),
  );
  expect(await answers(legacy, me.body.org_id)).toEqual(refused);
}, 30_000);

test("a token signed with the real secret naming a session that was never opened is refused", async () => {
  const me = await call<typeof meRoute>(filtration, "GET", "/auth/me", { token: admin });
  const minted = await signToken(
    t.app.config.jwtSecret,
    { sub: me.body.id, org: me.body.org_id, typ: "access", sid: crypto.randomUUID() },
    accessTokenSeconds,
    new Date(),
  );
  expect(await answers(minted, me.body.org_id)).toEqual(refused);
  // Another user's session is not this user's either.
  const email = `sid-${crypto.randomUUID().slice(0, 6)}@example.com`;
  await createUser(t, filtration, email, "viewer");
  const [, payload] = (await login(email)).access_token.split(".");
  const { sid } = JSON.parse(Buffer.from(payload as string, "base64url").toString()) as { sid: string };
  const borrowed = await signToken(
    t.app.config.jwtSecret,
    { sub: me.body.id, org: me.body.org_id, typ: "access", sid },
    accessTokenSeconds,
    new Date(),
  );
  expect(await answers(borrowed, me.body.org_id)).toEqual(refused);
}, 30_000);
