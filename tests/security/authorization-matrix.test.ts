// Every protected route of every HTTP gateway, called by every kind of caller, answers what its
// declared access and the built-in roles say: no credentials 401, a role without the permission 403,
// a role with it neither. The routes are read from the route files, so a route added later is in the
// matrix the moment it exists.
//
// Callers with the permission get path parameters of random UUIDs and an empty body, so they are
// expected to get 400 or 404 (never 401, 403, or a 500 from an unchecked input). The guard runs before
// the body is validated, so 401 and 403 come whatever the body.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { POST as login } from "#routes/filtration/auth/login.ts";
import { type LoadedRoute, loadRoutes } from "#server/http/loader.ts";
import { type Access, type BuiltinRole, builtinRoles, isPermission } from "#services/permissions.ts";
import {
  adminEmail,
  adminPassword,
  call,
  createOrganization,
  createUser,
  type Handler,
  loginAsAdmin,
  type TestApp,
} from "../support/app.ts";
import { startGateways } from "../support/callers.ts";

const gateways = ["filtration", "orchestration", "inference"] as const;
type Gateway = (typeof gateways)[number];

type Persona = "anonymous" | BuiltinRole | "other-org-admin";
const personas: Persona[] = ["anonymous", "viewer", "developer", "admin", "other-org-admin"];
const roleOf = (p: Exclude<Persona, "anonymous">): BuiltinRole => (p === "other-org-admin" ? "admin" : p);

type Expectation = 401 | 403 | "allowed";

/** What a persona must get from a route declaring `access`. */
function expectation(access: Access, persona: Persona): Expectation | undefined {
  if (access === "public") return undefined;
  if (persona === "anonymous") return 401;
  // A user's access token is neither the internal key nor a pool's node token.
  if (access === "internal" || access === "node" || access === "scim") return 401;
  if (access === "authenticated") return "allowed";
  return (builtinRoles[roleOf(persona)] as readonly string[]).includes(access) ? "allowed" : 403;
}

const routes: { gateway: Gateway; route: LoadedRoute }[] = [];
for (const gateway of gateways) {
  for (const route of await loadRoutes(gateway)) {
    if (route.definition.access !== "public") routes.push({ gateway, route });
  }
}

let t: TestApp;
let handlers: Record<Gateway, Handler>;
const tokens = {} as Record<Exclude<Persona, "anonymous">, string>;

beforeAll(async () => {
  ({ t, handlers } = await startGateways(gateways));
  const filtration = handlers.filtration;
  tokens.admin = (await loginAsAdmin(filtration)).access_token;
  tokens.developer = (
    await createUser(t, filtration, "matrix-developer@example.com", "developer")
  ).access_token;
  tokens.viewer = (await createUser(t, filtration, "matrix-viewer@example.com", "viewer")).access_token;
  const other = await createOrganization(t, "matrix-other");
  tokens["other-org-admin"] = (
    await createUser(t, filtration, "matrix-other-admin@example.com", "admin", other)
  ).access_token;
}, 60_000);
afterAll(() => t.close());

const personaEmails: Record<Exclude<Persona, "anonymous">, string> = {
  admin: adminEmail,
  developer: "matrix-developer@example.com",
  viewer: "matrix-viewer@example.com",
  "other-org-admin": "matrix-other-admin@example.com",
};

async function signIn(persona: Exclude<Persona, "anonymous">): Promise<string> {
  const res = await call<typeof login>(handlers.filtration, "POST", "/auth/login", {
    body: { email: personaEmails[persona], password: adminPassword },
  });
  return res.body.access_token;
}

function request(route: LoadedRoute, persona: Persona): Request {
  const path = route.path.replace(/:\w+/g, () => crypto.randomUUID());
  const headers: Record<string, string> = {};
  if (persona !== "anonymous") headers.authorization = `Bearer ${tokens[persona]}`;
  let body: string | undefined;
  if (route.method === "POST" || route.method === "PUT" || route.method === "PATCH") {
    headers["content-type"] = "application/json";
    body = "{}";
  }
  return new Request(`http://localhost${path}`, { method: route.method, headers, body });
}

test("the matrix covers the protected routes of every gateway", () => {
  const names = routes.map((r) => `${r.gateway} ${r.route.method} ${r.route.path}`);
  for (const known of [
    "filtration GET /auth/me",
    "filtration PUT /admin/users/:id/role",
    "filtration DELETE /admin/roles/:name",
    "filtration GET /audit/logs",
  ]) {
    expect(names).toContain(known);
  }
  for (const r of routes) {
    const access = r.route.definition.access;
    expect(isPermission(access) || ["authenticated", "internal", "node", "scim"].includes(access)).toBe(true);
  }
});

describe.each(gateways)("%s gateway", (gateway) => {
  const mine = routes.filter((r) => r.gateway === gateway);
  if (mine.length === 0) {
    test("has no protected routes yet", () => {
      expect(mine).toHaveLength(0);
    });
    return;
  }
  test.each(
    mine.map((r) => [`${r.route.method} ${r.route.path} (${r.route.definition.access})`, r.route] as const),
  )(
    "%s",
    async (_name, route) => {
      const wrong: string[] = [];
      for (const persona of personas) {
        const expected = expectation(route.definition.access, persona);
        if (expected === undefined) continue;
        const response = await handlers[gateway](request(route, persona));
        const status = response.status;
        await response.body?.cancel();
        // Signing out ends the persona's session: it signs in again for the routes after this one.
        if (persona !== "anonymous" && status === 200 && route.path === "/auth/logout") {
          tokens[persona] = await signIn(persona);
        }
        const ok =
          expected === "allowed" ? status !== 401 && status !== 403 && status !== 500 : status === expected;
        if (!ok) wrong.push(`${persona}: expected ${expected}, got ${status}`);
      }
      expect(wrong).toEqual([]);
    },
    30_000,
  );
});

describe("the expectations themselves", () => {
  test("follow the built-in roles of CONTRACTS", () => {
    expect(expectation("audit:read", "admin")).toBe("allowed");
    expect(expectation("audit:read", "developer")).toBe(403);
    expect(expectation("audit:read", "viewer")).toBe(403);
    expect(expectation("deployments:write", "developer")).toBe("allowed");
    expect(expectation("deployments:write", "viewer")).toBe(403);
    expect(expectation("deployments:read", "viewer")).toBe("allowed");
    expect(expectation("users:write", "developer")).toBe(403);
    expect(expectation("internal", "admin")).toBe(401);
    expect(expectation("node", "anonymous")).toBe(401);
    expect(expectation("authenticated", "viewer")).toBe("allowed");
    expect(expectation("public", "anonymous")).toBeUndefined();
  });
});
