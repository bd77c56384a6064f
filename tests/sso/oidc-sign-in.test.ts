// Single sign-on against a real OpenID provider (oidc-provider on a local port): the whole code flow
// through the dashboard's start and callback, the platform's own session at the end, groups mapped to
// roles at every sign-in, users created on their first sign-in, and each refusal openid-client must
// make (a replayed state, an expired ID token) — plus a key rotation at the provider, password
// sign-in turned off with a break-glass administrator, and every attempt audited.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { auditLogs, ssoLoginStates } from "#db/schema/index.ts";
import { csrfCookie } from "#routes/dashboard/_shared/csrf.ts";
import type { GET as getSso } from "#routes/filtration/admin/sso/index.ts";
import type { POST as login } from "#routes/filtration/auth/login.ts";
import type { GET as me } from "#routes/filtration/auth/me.ts";
import type { POST as refreshRoute } from "#routes/filtration/auth/refresh.ts";
import {
  addMembership,
  adminEmail,
  adminPassword,
  call,
  createOrganization,
  createUser,
  type ErrorBody,
  type Handler,
  loginAsAdmin,
  type TestApp,
} from "../support/app.ts";
import { startGateways } from "../support/callers.ts";
import { csrfOf, postForm } from "../support/dashboard.ts";
import {
  platformClient,
  signInThrough,
  startTestProvider,
  type TestProvider,
} from "../support/oidc-provider.ts";

let t: TestApp;
let filtration: Handler;
let dashboard: Handler;
let provider: TestProvider;
let admin: string;
let orgId: string;

const callbackUri = "http://localhost/login/sso/callback";

beforeAll(async () => {
  provider = await startTestProvider([callbackUri]);
  let handlers: Record<"filtration" | "dashboard", Handler>;
  ({ t, handlers } = await startGateways(["filtration", "dashboard"]));
  ({ filtration, dashboard } = handlers);
  const session = await loginAsAdmin(filtration);
  admin = session.access_token;
  orgId = session.user.org_id;
  const put = await call(filtration, "PUT", "/admin/sso", {
    token: admin,
    body: {
      display_name: "Test IdP",
      issuer_url: provider.issuer,
      client_id: platformClient.id,
      client_secret: platformClient.secret,
      group_roles: [
        { group: "platform-admins", role: "admin" },
        { group: "ml-engineers", role: "developer" },
      ],
      default_role: "viewer",
    },
  });
  expect(put.status).toBe(200);
}, 60_000);
afterAll(async () => {
  await t?.close();
  await provider?.close();
});

const startUrl = () => `http://localhost/login/sso/${orgId}?next=/deployments`;

/** The whole flow for one account; answers the callback's response. */
async function signIn(accountId: string): Promise<Response> {
  const callback = await signInThrough(startUrl(), dashboard, accountId);
  return dashboard(new Request(callback));
}

const cookiesOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");

async function whoAmI(res: Response) {
  const access = /llmp_session=([^;]+)/.exec(cookiesOf(res))?.[1];
  expect(access).toBeDefined();
  return call<typeof me>(filtration, "GET", "/auth/me", { token: decodeURIComponent(access ?? "") });
}

describe("configuration", () => {
  test("GET /admin/sso answers the configuration without its secret; a viewer cannot change it", async () => {
    const res = await call<typeof getSso>(filtration, "GET", "/admin/sso", { token: admin });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      display_name: "Test IdP",
      issuer_url: provider.issuer,
      client_id: platformClient.id,
      client_secret_set: true,
      groups_claim: "groups",
      redirect_path: "/login/sso/callback",
    });
    expect(JSON.stringify(res.body)).not.toContain(platformClient.secret);
    const viewer = (await createUser(t, filtration, "sso-viewer@example.com", "viewer")).access_token;
    const refused = await call(filtration, "PUT", "/admin/sso", {
      token: viewer,
      body: { display_name: "x", issuer_url: provider.issuer, client_id: "x", client_secret: "y" },
    });
    expect(refused.status).toBe(403);
  });

  test("an unknown role or a bad issuer is 400 on its field", async () => {
    const res = await call<ErrorBody>(filtration, "PUT", "/admin/sso", {
      token: admin,
      body: {
        display_name: "Test IdP",
        issuer_url: provider.issuer,
        client_id: platformClient.id,
        group_roles: [{ group: "g", role: "no-such-role" }],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details?.fields?.[0]?.field).toBe("group_roles.0.role");
    const bad = await call<ErrorBody>(filtration, "PUT", "/admin/sso", {
      token: admin,
      body: { display_name: "x", issuer_url: "ftp://idp", client_id: "x" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details?.fields?.[0]?.field).toBe("issuer_url");
  });

  test('the sign-in page shows "Sign in with Test IdP"', async () => {
    const page = await (await dashboard(new Request("http://localhost/login"))).text();
    expect(page).toContain("Sign in with Test IdP");
    expect(page).toContain(`/login/sso/${orgId}`);
  });
});

describe("the code flow", () => {
  test("first sign-in creates the user with the default role and issues the platform's session", async () => {
    provider.accounts.set("alice", { email: "alice@example.com", groups: [] });
    const res = await signIn("alice");
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('url=/deployments"');
    const me = await whoAmI(res);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email: "alice@example.com", role: "viewer", org_id: orgId });
    const audit = await t.app.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.action, "user.provision"), eq(auditLogs.actorLabel, "alice@example.com")));
    expect(audit).toHaveLength(1);
  });

  test("groups map to roles at every sign-in: a group removed at the provider removes the role", async () => {
    provider.accounts.set("bob", { email: "bob@example.com", groups: ["ml-engineers", "everyone"] });
    const first = await whoAmI(await signIn("bob"));
    expect(first.body.role).toBe("developer");
    provider.accounts.set("bob", { email: "bob@example.com", groups: ["platform-admins", "ml-engineers"] });
    expect((await whoAmI(await signIn("bob"))).body.role).toBe("admin");
    provider.accounts.set("bob", { email: "bob@example.com", groups: ["everyone"] });
    expect((await whoAmI(await signIn("bob"))).body.role).toBe("viewer");
  });

  test("a replayed state is refused, and audited", async () => {
    provider.accounts.set("carol", { email: "carol@example.com", groups: [] });
    const callback = await signInThrough(startUrl(), dashboard, "carol");
    expect((await dashboard(new Request(callback))).status).toBe(200);
    const replay = await dashboard(new Request(callback));
    expect(replay.status).toBe(401);
    expect(await replay.text()).toContain("expired or was already used");
    const failures = await t.app.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.action, "auth.sso_login"), eq(auditLogs.outcome, "failure")));
    expect(failures.some((f) => f.details.reason === "state_invalid")).toBe(true);
  });

  test("a state the platform never issued is refused", async () => {
    const res = await dashboard(new Request(`${callbackUri}?code=abc&state=forged`));
    expect(res.status).toBe(401);
  });

  test("an ID token for another audience, or with another nonce, is refused; a right one is accepted", async () => {
    provider.accounts.set("hana", { email: "hana@example.com", groups: [] });
    /** The callback answered when the provider's token endpoint hands back an ID token for `aud`. */
    const withIdTokenFor = async (aud: string, nonce?: string) => {
      const callback = await signInThrough(startUrl(), dashboard, "hana");
      const state = callback.searchParams.get("state") ?? "";
      const [pending] = await t.app.db.select().from(ssoLoginStates).where(eq(ssoLoginStates.state, state));
      const now = Math.floor(Date.now() / 1000);
      const idToken = await provider.sign({
        iss: provider.issuer,
        sub: "hana",
        aud,
        nonce: nonce ?? pending?.nonce,
        iat: now,
        exp: now + 60,
        email: "hana@example.com",
      });
      provider.answerNextTokenRequest({
        access_token: "opaque",
        token_type: "Bearer",
        expires_in: 60,
        id_token: idToken,
      });
      return dashboard(new Request(callback));
    };
    expect((await withIdTokenFor("some-other-client")).status).toBe(401);
    expect((await withIdTokenFor(platformClient.id, "a-nonce-of-another-sign-in")).status).toBe(401);
    expect((await withIdTokenFor(platformClient.id)).status).toBe(200);
  });

  test("an expired ID token is refused (the platform's clock five minutes ahead of a 60 s ID token)", async () => {
    provider.accounts.set("dave", { email: "dave@example.com", groups: [] });
    const callback = await signInThrough(startUrl(), dashboard, "dave");
    const realClock = t.app.clock;
    t.app.clock = () => new Date(Date.now() + 5 * 60_000);
    try {
      expect((await dashboard(new Request(callback))).status).toBe(401);
    } finally {
      t.app.clock = realClock;
    }
    const failures = await t.app.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.action, "auth.sso_login"), eq(auditLogs.outcome, "failure")));
    expect(failures.filter((f) => f.details.reason === "provider_refused")).toHaveLength(3);
  });

  test("after a key rotation at the provider (the old key gone) sign-in still works", async () => {
    provider.accounts.set("erin", { email: "erin@example.com", groups: ["ml-engineers"] });
    const before = provider.kid();
    await provider.rotate();
    expect(provider.kid()).not.toBe(before);
    const res = await signIn("erin");
    expect(res.status).toBe(200);
    expect((await whoAmI(res)).body.role).toBe("developer");
  });

  test("the session is the platform's own: refresh rotates it, sign-out ends it", async () => {
    provider.accounts.set("frank", { email: "frank@example.com", groups: [] });
    const res = await signIn("frank");
    const refresh = /llmp_refresh=([^;]+)/.exec(cookiesOf(res))?.[1] ?? "";
    const rotated = await call<typeof refreshRoute>(filtration, "POST", "/auth/refresh", {
      body: { refresh_token: decodeURIComponent(refresh) },
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.user.email).toBe("frank@example.com");
    const out = await call(filtration, "POST", "/auth/logout", { token: rotated.body.access_token });
    expect(out.status).toBe(200);
    expect((await call(filtration, "GET", "/auth/me", { token: rotated.body.access_token })).status).toBe(
      401,
    );
  });
});

describe("password sign-in turned off", () => {
  test("needs a break-glass administrator", async () => {
    const res = await call<ErrorBody>(filtration, "PUT", "/admin/sso", {
      token: admin,
      body: {
        display_name: "Test IdP",
        issuer_url: provider.issuer,
        client_id: platformClient.id,
        password_login_disabled: true,
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details?.fields?.[0]?.field).toBe("break_glass_emails");
  });

  test("members are refused a password sign-in, the break-glass admin is not, SSO still works", async () => {
    await createUser(t, filtration, "password-user@example.com", "developer");
    const put = await call(filtration, "PUT", "/admin/sso", {
      token: admin,
      body: {
        display_name: "Test IdP",
        issuer_url: provider.issuer,
        client_id: platformClient.id,
        password_login_disabled: true,
        break_glass_emails: [adminEmail],
      },
    });
    expect(put.status).toBe(200);
    const refused = await call<ErrorBody>(filtration, "POST", "/auth/login", {
      body: { email: "password-user@example.com", password: adminPassword },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain("single sign-on");
    const csrf = csrfOf(await dashboard(new Request("http://localhost/login")));
    const page = await postForm(
      dashboard,
      "/login",
      { email: "password-user@example.com", password: adminPassword, _csrf: csrf },
      `${csrfCookie}=${csrf}`,
    );
    expect(page.status).toBe(403);
    const html = await page.text();
    expect(html).toContain("password sign-in is turned off");
    expect(html).toContain("Sign in with Test IdP");
    const breakGlass = await call<typeof login>(filtration, "POST", "/auth/login", {
      body: { email: adminEmail, password: adminPassword },
    });
    expect(breakGlass.status).toBe(200);
    const refusals = await t.app.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.action, "auth.login"), eq(auditLogs.actorLabel, "password-user@example.com")));
    expect(refusals.filter((a) => a.details.reason === "password_disabled")).toHaveLength(2);
    provider.accounts.set("grace", { email: "grace@example.com", groups: [] });
    expect((await signIn("grace")).status).toBe(200);
    // A session begun in another organization does not enter this one either.
    const elsewhere = await createOrganization(t, "sso-elsewhere");
    const traveller = await createUser(t, filtration, "traveller@example.com", "viewer", elsewhere);
    await addMembership(t, traveller.user.id, orgId, "viewer");
    const switched = await call(filtration, "POST", "/auth/switch-org", {
      token: traveller.access_token,
      body: { org_id: orgId },
    });
    expect(switched.status).toBe(403);
    const back = await call(filtration, "PUT", "/admin/sso", {
      token: breakGlass.body.access_token,
      body: {
        display_name: "Test IdP",
        issuer_url: provider.issuer,
        client_id: platformClient.id,
        password_login_disabled: false,
      },
    });
    expect(back.status).toBe(200);
    expect(
      (
        await call(filtration, "POST", "/auth/login", {
          body: { email: "password-user@example.com", password: adminPassword },
        })
      ).status,
    ).toBe(200);
  });
});
