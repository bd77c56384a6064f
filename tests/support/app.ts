// An in-process platform for tests: a fresh database, the bootstrap (default organization and first
// administrator), and gateways answered through app.handle() without opening ports.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { POST as login } from "#routes/filtration/auth/login.ts";
import { buildHttpGateway } from "#routes/gateways.ts";
import { createAppContext } from "#server/compose.ts";
import { type Config, loadConfig } from "#server/config.ts";
import { createLogger } from "#server/log.ts";
import type { PlatformContext } from "#server/platform-context.ts";
import type { AppContext } from "#services/context.ts";
import { bootstrap } from "#services/orgs/bootstrap.ts";
import { freshDatabase, type TestDatabase } from "./database.ts";
import { type BodyOf, type CallResult, resultOf } from "./json.ts";

export const adminEmail = "admin@example.com";
export const adminPassword = "correct horse battery staple";

export interface TestApp {
  app: PlatformContext;
  database: TestDatabase;
  config: Config;
  close(): Promise<void>;
}

export function testConfig(overrides: Record<string, string> = {}): Config {
  const dataDir = mkdtempSync(join(tmpdir(), "llmp-test-"));
  return loadConfig({
    DATA_DIR: dataDir,
    // Tests write their model files into the data directory: it is their model directory.
    MODELS_DIR: dataDir,
    ADMIN_EMAIL: adminEmail,
    ADMIN_PASSWORD: adminPassword,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    // The cheap argon2id that tests/support/preload.ts sets for the whole run.
    PASSWORD_HASH_MEMORY_KIB: process.env.PASSWORD_HASH_MEMORY_KIB,
    PASSWORD_HASH_TIME_COST: process.env.PASSWORD_HASH_TIME_COST,
    ...overrides,
  });
}

export async function startTestApp(
  overrides: Record<string, string> = {},
  parts: { tracer?: AppContext["tracer"] } = {},
): Promise<TestApp> {
  const database = await freshDatabase();
  const config = testConfig(overrides);
  const app = createAppContext({
    db: database.handle.db,
    config,
    log: createLogger(config.logLevel),
    tracer: parts.tracer,
  });
  await bootstrap(app);
  return {
    app,
    database,
    config,
    async close() {
      await database.drop();
      rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}

export type Handler = (request: Request) => Promise<Response>;

export async function gatewayHandler(
  app: PlatformContext,
  name: "inference" | "filtration" | "orchestration" | "dashboard",
) {
  const gateway = await buildHttpGateway(app, name);
  return { gateway, handle: ((request: Request) => gateway.app.handle(request)) as Handler };
}

// The typed JSON answers live in json.ts (light: no server modules), for tests that start the platform
// as a process; they are here too, with `call`, which answers with them.
export {
  type BodyOf,
  type CallResult,
  type ErrorBody,
  fetchJson,
  jsonBody,
  parsedJson,
  type ReadinessBody,
} from "./json.ts";

/**
 * JSON request helper: `call<typeof POST>(handle, "POST", "/management/api-keys", { body, token })`.
 * The body is typed as the route's success answer; read an error's body through `call<ErrorBody>`.
 * Without a type argument it is `unknown`: a test names what it expects to read.
 */
export async function call<R = unknown>(
  handle: Handler,
  method: string,
  path: string,
  options: { body?: unknown; token?: string; headers?: Record<string, string>; raw?: string } = {},
): Promise<CallResult<BodyOf<R>>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers["content-type"] ??= "application/json";
  const response = await handle(new Request(`http://localhost${path}`, { method, headers, body }));
  return resultOf<R>(response);
}

export async function loginAsAdmin(handle: Handler) {
  const res = await call<typeof login>(handle, "POST", "/auth/login", {
    body: { email: adminEmail, password: adminPassword },
  });
  if (res.status !== 200) throw new Error(`admin login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Adds a user with a built-in role to an organization (the default one unless given) and signs them in. */
export async function createUser(
  t: TestApp,
  handle: Handler,
  email: string,
  role: "admin" | "developer" | "viewer",
  orgId?: string,
) {
  const { and, eq } = await import("drizzle-orm");
  const { memberships, organizations, roles, users } = await import("#db/schema/index.ts");
  const { hashPassword } = await import("#services/crypto/passwords.ts");
  const db = t.app.db;
  const org =
    orgId ?? (await db.select().from(organizations).where(eq(organizations.name, "default")))[0]?.id;
  if (!org) throw new Error("no organization");
  const [roleRow] = await db
    .select()
    .from(roles)
    .where(and(eq(roles.orgId, org), eq(roles.name, role)));
  const [user] = await db
    .insert(users)
    .values({ email, passwordHash: await hashPassword(adminPassword, t.app.config.passwordHash) })
    .returning();
  if (!user || !roleRow) throw new Error("could not create the user");
  await db.insert(memberships).values({ userId: user.id, orgId: org, roleId: roleRow.id });
  const res = await call<typeof login>(handle, "POST", "/auth/login", {
    body: { email, password: adminPassword },
  });
  return res.body;
}

/** A new organization with its built-in roles; returns its id. */
export async function createOrganization(t: TestApp, name: string): Promise<string> {
  const { organizations } = await import("#db/schema/index.ts");
  const { ensureBuiltinRoles } = await import("#services/orgs/builtin-roles.ts");
  const [org] = await t.app.db.insert(organizations).values({ name }).returning();
  if (!org) throw new Error("could not create the organization");
  await ensureBuiltinRoles(t.app.db, org.id);
  return org.id;
}

/** Makes an existing user a member of another organization with a built-in role. */
export async function addMembership(
  t: TestApp,
  userId: string,
  orgId: string,
  role: "admin" | "developer" | "viewer",
) {
  const { and, eq } = await import("drizzle-orm");
  const { memberships, roles } = await import("#db/schema/index.ts");
  const [roleRow] = await t.app.db
    .select()
    .from(roles)
    .where(and(eq(roles.orgId, orgId), eq(roles.name, role)));
  if (!roleRow) throw new Error(`no role ${role} in ${orgId}`);
  await t.app.db.insert(memberships).values({ userId, orgId, roleId: roleRow.id });
}
