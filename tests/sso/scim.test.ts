// SCIM 2.0 provisioning with the RFCs' own example requests (RFC 7643 §8.2's user, RFC 7644 §3.5.2's
// PATCH operations): create, read, replace, patch, filter and page, groups as roles, errors in
// RFC 7644 §3.12's shape — and deactivation, which ends the user's session on the filtration and
// orchestration gateways, the dashboard and the gRPC port, and the user's API keys at the inference
// gateway, from the next request.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as grpc from "@grpc/grpc-js";
import { and, eq } from "drizzle-orm";
import { auditLogs } from "#db/schema/index.ts";
import type { GET as listRoles } from "#routes/filtration/admin/roles/index.ts";
import type {
  GET as listScimTokens,
  POST as newScimToken,
} from "#routes/filtration/admin/scim/tokens/index.ts";
import type { GET as me } from "#routes/filtration/auth/me.ts";
import type { POST as createApiKey } from "#routes/filtration/management/api-keys/index.ts";
import type { PATCH as patchGroup } from "#routes/filtration/scim/v2/Groups/[id].ts";
import type { POST as createGroup, GET as listGroups } from "#routes/filtration/scim/v2/Groups/index.ts";
import type {
  GET as getUser,
  PATCH as patchUser,
  PUT as putUser,
} from "#routes/filtration/scim/v2/Users/[id].ts";
import type { POST as createUser, GET as listUsers } from "#routes/filtration/scim/v2/Users/index.ts";
import { withInference } from "#server/compose.ts";
import type { InferenceRuntime } from "#services/inference/runtime.ts";
import type { ListResponse, ScimError } from "#services/scim/protocol.ts";
import { connectPlatformGrpc, type TestClient } from "../grpc/support.ts";
import {
  adminEmail,
  call,
  gatewayHandler,
  type Handler,
  loginAsAdmin,
  type TestApp,
} from "../support/app.ts";
import { startGateways } from "../support/callers.ts";
import { inProcessInference } from "../support/inference.ts";
import {
  platformClient,
  signInThrough,
  startTestProvider,
  type TestProvider,
} from "../support/oidc-provider.ts";

const pools = "llmplatform.orchestration.v1.ComputePoolManagerService";
const scimJson = "application/scim+json";
const userSchema = "urn:ietf:params:scim:schemas:core:2.0:User";
const patchOp = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

type Gateways = "filtration" | "orchestration" | "dashboard" | "inference";
let t: TestApp;
let h: Record<Gateways, Handler>;
let provider: TestProvider;
let client: TestClient;
let closeGrpc: (() => Promise<void>) | undefined;
let admin: string;
let orgId: string;
let scimToken: string;
let runtime: InferenceRuntime;

beforeAll(async () => {
  provider = await startTestProvider(["http://localhost/login/sso/callback"]);
  let handlers: Record<Exclude<Gateways, "inference">, Handler>;
  ({ t, handlers } = await startGateways(["filtration", "orchestration", "dashboard"]));
  runtime = inProcessInference(t.app);
  const inference = await gatewayHandler(withInference(t.app, runtime), "inference");
  h = { ...handlers, inference: inference.handle };
  ({ client, close: closeGrpc } = await connectPlatformGrpc(t.app));
  const session = await loginAsAdmin(h.filtration);
  admin = session.access_token;
  orgId = session.user.org_id;
  // Provisioned members start as developers here, so the one in the test can make an API key.
  const sso = await call(h.filtration, "PUT", "/admin/sso", {
    token: admin,
    body: {
      display_name: "Test IdP",
      issuer_url: provider.issuer,
      client_id: platformClient.id,
      client_secret: platformClient.secret,
      default_role: "developer",
    },
  });
  expect(sso.status).toBe(200);
  const made = await call<typeof newScimToken>(h.filtration, "POST", "/admin/scim/tokens", { token: admin });
  expect(made.status).toBe(201);
  scimToken = made.body.token;
}, 60_000);
afterAll(async () => {
  await closeGrpc?.();
  await runtime?.close();
  await t?.close();
  await provider?.close();
});

/**
 * A SCIM request as an identity provider's client sends it (an empty token too, as "Bearer "):
 * `scim<typeof PATCH>(...)` types the body as the route's answer, `scim<ScimError>` as RFC 7644's error.
 */
async function scim<R = unknown>(method: string, path: string, body?: unknown, token = scimToken) {
  const res = await call<R>(h.filtration, method, `/scim/v2${path}`, {
    body,
    headers: {
      authorization: `Bearer ${token}`,
      accept: scimJson,
      ...(body === undefined ? {} : { "content-type": scimJson }),
    },
  });
  return { status: res.status, type: res.headers.get("content-type") ?? "", body: res.body };
}

/** RFC 7643 §8.2, "Full User Representation", as a client would POST it (without `id` and `meta`). */
const babs = {
  schemas: [userSchema],
  externalId: "701984",
  userName: "bjensen@example.com",
  name: {
    formatted: "Ms. Barbara J Jensen, III",
    familyName: "Jensen",
    givenName: "Barbara",
    middleName: "Jane",
    honorificPrefix: "Ms.",
    honorificSuffix: "III",
  },
  displayName: "Babs Jensen",
  nickName: "Babs",
  profileUrl: "https://login.example.com/bjensen",
  emails: [
    { value: "bjensen@example.com", type: "work", primary: true },
    { value: "babs@jensen.org", type: "home" },
  ],
  phoneNumbers: [{ value: "555-555-5555", type: "work" }],
  userType: "Employee",
  title: "Tour Guide",
  preferredLanguage: "en-US",
  locale: "en-US",
  timezone: "America/Los_Angeles",
  active: true,
  password: "t1meMa$heen",
};

let babsId: string;

describe("the SCIM token", () => {
  test("is shown once; the list has its prefix only", async () => {
    const list = await call<typeof listScimTokens>(h.filtration, "GET", "/admin/scim/tokens", {
      token: admin,
    });
    expect(list.status).toBe(200);
    expect(list.body.tokens[0]?.prefix).toBe(scimToken.slice(0, 13));
    expect(JSON.stringify(list.body)).not.toContain(scimToken);
  });

  test("no token, a wrong one, or a user's access token: 401 in SCIM's error shape", async () => {
    for (const token of ["", "scim-wrong", admin]) {
      const res = await scim<ScimError>("GET", "/Users", undefined, token);
      expect(res.status).toBe(401);
      expect(res.type).toContain(scimJson);
      expect(res.body).toMatchObject({
        schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"],
        status: "401",
      });
    }
  });

  test("discovery: ServiceProviderConfig, ResourceTypes, Schemas", async () => {
    const spc = await scim("GET", "/ServiceProviderConfig");
    expect(spc.status).toBe(200);
    expect(spc.body).toMatchObject({
      patch: { supported: true },
      filter: { supported: true, maxResults: 200 },
    });
    const types = await scim<ListResponse<{ id: string }>>("GET", "/ResourceTypes");
    expect(types.body.Resources.map((r: { id: string }) => r.id)).toEqual(["User", "Group"]);
    const schemas = await scim<ListResponse<{ id: string }>>("GET", "/Schemas");
    expect(schemas.body.Resources.map((r: { id: string }) => r.id)).toContain(userSchema);
  });
});

describe("Users", () => {
  test("create with RFC 7643's full user: 201, Location, application/scim+json, audited", async () => {
    const res = await scim<typeof createUser>("POST", "/Users", babs);
    expect(res.status).toBe(201);
    expect(res.type).toContain(scimJson);
    expect(res.body).toMatchObject({
      schemas: [userSchema],
      userName: "bjensen@example.com",
      externalId: "701984",
      displayName: "Babs Jensen",
      active: true,
      groups: [{ display: "developer" }],
      meta: { resourceType: "User" },
    });
    babsId = res.body.id;
    expect(res.body.meta.location).toBe(`http://localhost/scim/v2/Users/${babsId}`);
    const again = await scim<ScimError>("POST", "/Users", babs);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ status: "409", scimType: "uniqueness" });
  });

  test("a bad body is 400 invalidValue; an unknown id is 404", async () => {
    const bad = await scim<ScimError>("POST", "/Users", {
      schemas: [userSchema],
      userName: "not an address",
    });
    expect(bad.status).toBe(400);
    expect(bad.body.scimType).toBe("invalidValue");
    const missing = await scim<ScimError>("GET", `/Users/${crypto.randomUUID()}`);
    expect(missing.status).toBe(404);
    expect(missing.body.status).toBe("404");
  });

  test("RFC 7644 §3.5.2.3's replace without a path (attributes the platform does not keep are ignored)", async () => {
    const res = await scim<typeof patchUser>("PATCH", `/Users/${babsId}`, {
      schemas: [patchOp],
      Operations: [
        {
          op: "replace",
          value: {
            emails: [{ value: "bjensen@example.com", type: "work" }],
            nickName: "Babs",
            displayName: "Babs J.",
          },
        },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.displayName).toBe("Babs J.");
  });

  test("PUT replaces: attributes left out are cleared", async () => {
    const res = await scim<typeof putUser>("PUT", `/Users/${babsId}`, {
      schemas: [userSchema],
      userName: "bjensen@example.com",
    });
    expect(res.status).toBe(200);
    expect(res.body.externalId).toBeUndefined();
    expect(res.body.displayName).toBeUndefined();
    expect(res.body.active).toBe(true);
    const back = await scim<typeof patchUser>("PATCH", `/Users/${babsId}`, {
      schemas: [patchOp],
      Operations: [{ op: "add", path: "externalId", value: "701984" }],
    });
    expect(back.body.externalId).toBe("701984");
  });

  test("filter and paging", async () => {
    for (let i = 0; i < 5; i++)
      expect(
        (
          await scim("POST", "/Users", {
            schemas: [userSchema],
            userName: `page${i}@example.com`,
            displayName: `Page ${i}`,
          })
        ).status,
      ).toBe(201);
    const byName = await scim<typeof listUsers>(
      "GET",
      `/Users?filter=${encodeURIComponent('userName eq "BJensen@example.com"')}`,
    );
    expect(byName.status).toBe(200);
    expect(byName.body).toMatchObject({
      schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
      totalResults: 1,
    });
    expect(byName.body.Resources[0]?.id).toBe(babsId);
    const byExternal = await scim<typeof listUsers>(
      "GET",
      `/Users?filter=${encodeURIComponent('externalId eq "701984"')}`,
    );
    expect(byExternal.body.Resources.map((u: { id: string }) => u.id)).toEqual([babsId]);
    const byDisplay = await scim<typeof listUsers>(
      "GET",
      `/Users?filter=${encodeURIComponent('displayName eq "Page 3"')}`,
    );
    expect(byDisplay.body.Resources.map((u: { userName: string }) => u.userName)).toEqual([
      "page3@example.com",
    ]);
    const startsWith = await scim<typeof listUsers>(
      "GET",
      `/Users?filter=${encodeURIComponent('userName sw "page"')}&startIndex=2&count=2`,
    );
    expect(startsWith.body).toMatchObject({ totalResults: 5, startIndex: 2, itemsPerPage: 2 });
    expect(startsWith.body.Resources.map((u: { userName: string }) => u.userName)).toEqual([
      "page1@example.com",
      "page2@example.com",
    ]);
    const broken = await scim<ScimError>("GET", `/Users?filter=${encodeURIComponent("userName eq")}`);
    expect(broken.status).toBe(400);
    expect(broken.body.scimType).toBe("invalidFilter");
  });
});

describe("Groups are roles", () => {
  test("RFC 7644 §3.5.2.1 add member, §3.5.2.2 remove member", async () => {
    const list = await scim<typeof listGroups>(
      "GET",
      `/Groups?filter=${encodeURIComponent('displayName eq "admin"')}`,
    );
    expect(list.body.totalResults).toBe(1);
    const adminGroup = list.body.Resources[0]?.id;
    const added = await scim<typeof patchGroup>("PATCH", `/Groups/${adminGroup}`, {
      schemas: [patchOp],
      Operations: [
        {
          op: "add",
          path: "members",
          value: [
            { display: "Babs Jensen", $ref: `http://localhost/scim/v2/Users/${babsId}`, value: babsId },
          ],
        },
      ],
    });
    expect(added.status).toBe(200);
    expect(added.body.members.map((m: { value: string }) => m.value)).toContain(babsId);
    expect((await scim<typeof getUser>("GET", `/Users/${babsId}`)).body.groups[0]?.display).toBe("admin");
    const removed = await scim("PATCH", `/Groups/${adminGroup}`, {
      schemas: [patchOp],
      Operations: [{ op: "remove", path: `members[value eq "${babsId}"]` }],
    });
    expect(removed.status).toBe(200);
    expect((await scim<typeof getUser>("GET", `/Users/${babsId}`)).body.groups[0]?.display).toBe("developer");
  });

  test("a new group is a custom role without permissions; a taken name is 409", async () => {
    const made = await scim<typeof createGroup>("POST", "/Groups", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
      displayName: "Tour Guides",
    });
    expect(made.status).toBe(201);
    expect(made.body.displayName).toBe("tour-guides");
    const roles = await call<typeof listRoles>(h.filtration, "GET", "/admin/roles", { token: admin });
    expect(roles.body.roles.find((r: { name: string }) => r.name === "tour-guides")?.permissions).toEqual([]);
    expect((await scim("POST", "/Groups", { displayName: "tour-guides" })).status).toBe(409);
    // Entra ID repeats the name with its changes: the same name passes, another is refused.
    const same = await scim("PATCH", `/Groups/${made.body.id}`, {
      schemas: [patchOp],
      Operations: [{ op: "Replace", path: "displayName", value: "Tour Guides" }],
    });
    expect(same.status).toBe(200);
    const rename = await scim<ScimError>("PATCH", `/Groups/${made.body.id}`, {
      schemas: [patchOp],
      Operations: [{ op: "replace", value: { displayName: "Guides" } }],
    });
    expect(rename.status).toBe(400);
    expect(rename.body.scimType).toBe("mutability");
    expect((await scim("DELETE", `/Groups/${made.body.id}`)).status).toBe(204);
  });
});

describe("the break-glass administrator", () => {
  test("cannot be deactivated, removed or demoted by the identity provider", async () => {
    const setBreakGlass = (emails: string[]) =>
      call(h.filtration, "PUT", "/admin/sso", {
        token: admin,
        body: {
          display_name: "Test IdP",
          issuer_url: provider.issuer,
          client_id: platformClient.id,
          default_role: "developer",
          break_glass_emails: emails,
        },
      });
    expect((await setBreakGlass([adminEmail])).status).toBe(200);
    const found = await scim<typeof listUsers>(
      "GET",
      `/Users?filter=${encodeURIComponent(`userName eq "${adminEmail}"`)}`,
    );
    const id = found.body.Resources[0]?.id;
    const deactivate = await scim<ScimError>("PATCH", `/Users/${id}`, {
      schemas: [patchOp],
      Operations: [{ op: "replace", path: "active", value: false }],
    });
    expect(deactivate.status).toBe(409);
    expect(deactivate.body.scimType).toBe("mutability");
    expect((await scim("DELETE", `/Users/${id}`)).status).toBe(409);
    const adminGroup = found.body.Resources[0]?.groups[0]?.value;
    const demote = await scim("PATCH", `/Groups/${adminGroup}`, {
      schemas: [patchOp],
      Operations: [{ op: "remove", path: `members[value eq "${id}"]` }],
    });
    expect(demote.status).toBe(409);
    expect((await call<typeof me>(h.filtration, "GET", "/auth/me", { token: admin })).body.role).toBe(
      "admin",
    );
    expect((await setBreakGlass([])).status).toBe(200);
  });
});

describe("deactivation", () => {
  test("active: false ends the session everywhere and the API keys at the inference gateway", async () => {
    // Babs signs in through the identity provider (linked to the provisioned account by e-mail)...
    provider.accounts.set("babs", { email: "bjensen@example.com", groups: [] });
    const callback = await signInThrough(`http://localhost/login/sso/${orgId}`, h.dashboard, "babs");
    const signedIn = await h.dashboard(new Request(callback));
    expect(signedIn.status).toBe(200);
    const token = decodeURIComponent(
      /llmp_session=([^;]+)/.exec(signedIn.headers.get("set-cookie") ?? "")?.[1] ?? "",
    );
    // ...and makes an API key.
    const key = await call<typeof createApiKey>(h.filtration, "POST", "/management/api-keys", {
      token,
      body: { name: "babs-key" },
    });
    expect(key.status).toBe(201);
    const answers = async () => {
      const metadata = new grpc.Metadata();
      metadata.set("authorization", `Bearer ${token}`);
      const [me, listPools, page, rpc, models] = await Promise.all([
        call(h.filtration, "GET", "/auth/me", { token }),
        call(h.orchestration, "GET", `/deployment/listPools/${orgId}`, { token }),
        h.dashboard(new Request("http://localhost/", { headers: { cookie: `llmp_session=${token}` } })),
        client.unary(pools, "ListPools", {}, metadata).then(
          () => grpc.status.OK,
          (e: grpc.ServiceError) => e.code,
        ),
        call(h.inference, "GET", "/v1/models", { token: key.body.key }),
      ]);
      return {
        filtration: me.status,
        orchestration: listPools.status,
        dashboard: page.status,
        grpc: rpc,
        inference: models.status,
      };
    };
    expect(await answers()).toEqual({
      filtration: 200,
      orchestration: 200,
      dashboard: 200,
      grpc: grpc.status.OK,
      inference: 200,
    });

    // Entra ID sends booleans as strings; RFC clients send booleans. Both deactivate.
    const res = await scim<typeof patchUser>("PATCH", `/Users/${babsId}`, {
      schemas: [patchOp],
      Operations: [{ op: "Replace", path: "active", value: "False" }],
    });
    const deactivatedAt = performance.now();
    expect(res.status).toBe(200);
    expect(res.body.active).toBe(false);
    expect(await answers()).toEqual({
      filtration: 401,
      orchestration: 401,
      dashboard: 303,
      grpc: grpc.status.UNAUTHENTICATED,
      inference: 401,
    });
    expect(performance.now() - deactivatedAt).toBeLessThan(1000);

    // Audited, with the SCIM token as the actor.
    const [audit] = await t.app.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.action, "scim.user.deactivate"), eq(auditLogs.targetId, babsId)));
    expect(audit?.outcome).toBe("success");
    expect(audit?.actorLabel).toBe(`scim:${scimToken.slice(0, 13)}`);

    // A deactivated member signs in nowhere: not through the identity provider either.
    const again = await signInThrough(`http://localhost/login/sso/${orgId}`, h.dashboard, "babs");
    expect((await h.dashboard(new Request(again))).status).toBe(401);

    // Reactivated: signs in again (the revoked key stays revoked).
    const back = await scim<typeof patchUser>("PATCH", `/Users/${babsId}`, {
      schemas: [patchOp],
      Operations: [{ op: "replace", path: "active", value: true }],
    });
    expect(back.body.active).toBe(true);
    const third = await signInThrough(`http://localhost/login/sso/${orgId}`, h.dashboard, "babs");
    expect((await h.dashboard(new Request(third))).status).toBe(200);
  });

  test("DELETE removes the member; a later GET is 404", async () => {
    expect((await scim("DELETE", `/Users/${babsId}`)).status).toBe(204);
    expect((await scim("GET", `/Users/${babsId}`)).status).toBe(404);
  });

  test("a revoked SCIM token is refused", async () => {
    const list = await call<typeof listScimTokens>(h.filtration, "GET", "/admin/scim/tokens", {
      token: admin,
    });
    const id = list.body.tokens[0]?.id;
    expect((await call(h.filtration, "DELETE", `/admin/scim/tokens/${id}`, { token: admin })).status).toBe(
      200,
    );
    expect((await scim("GET", "/Users")).status).toBe(401);
  });
});
