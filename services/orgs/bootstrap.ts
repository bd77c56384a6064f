// First start of an installation: the default organization, its built-in roles and the first
// administrator (ADMIN_EMAIL / ADMIN_PASSWORD). Later starts only refresh the built-in roles'
// permissions, so a release that adds a permission grants it to admins without a manual step.
//
// The platform creates the administrator only once every listener is bound (createFirstAdmin after
// bootstrap with `admin: false`): a start that fails on a taken port must not leave an administrator
// whose generated password was never printed.
import { eq, sql } from "drizzle-orm";
import type { Executor } from "#db/client.ts";
import { memberships, organizations, users } from "#db/schema/index.ts";
import type { AppContext } from "../context.ts";
import { generatePassword, hashPassword } from "../crypto/passwords.ts";
import { ensureBuiltinRoles } from "./builtin-roles.ts";

export const defaultOrganizationName = "default";
const lockKey = 0x6c6c6d626f6f74n; // "llmboot"

export interface BootstrapResult {
  /** Set only when this start created the administrator with a generated password. */
  generatedPassword?: string;
  adminCreated: boolean;
}

/** The default organization and every organization's built-in roles; the administrator too unless told. */
export async function bootstrap(
  ctx: AppContext,
  options: { admin: boolean } = { admin: true },
): Promise<BootstrapResult> {
  await ctx.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${lockKey})`);
    await defaultOrganization(tx);
  });
  return options.admin ? createFirstAdmin(ctx) : { adminCreated: false };
}

async function defaultOrganization(tx: Executor) {
  let [org] = await tx.select().from(organizations).where(eq(organizations.name, defaultOrganizationName));
  org ??= (await tx.insert(organizations).values({ name: defaultOrganizationName }).returning())[0];
  if (!org) throw new Error("could not create the default organization");
  const roleIds = await ensureBuiltinRoles(tx, org.id);
  for (const other of await tx.select({ id: organizations.id }).from(organizations)) {
    if (other.id !== org.id) await ensureBuiltinRoles(tx, other.id);
  }
  return { org, roleIds };
}

/** The first administrator, when the installation has no user yet. */
export async function createFirstAdmin(ctx: AppContext): Promise<BootstrapResult> {
  // Hash outside the transaction: argon2 is slow and the lock should be short.
  const password = ctx.config.adminPassword ?? generatePassword();
  const passwordHash = await hashPassword(password, ctx.config.passwordHash);
  return ctx.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${lockKey})`);
    const [anyone] = await tx.select({ id: users.id }).from(users).limit(1);
    if (anyone) return { adminCreated: false };
    const { org, roleIds } = await defaultOrganization(tx);
    const [admin] = await tx.insert(users).values({ email: ctx.config.adminEmail, passwordHash }).returning();
    if (!admin) throw new Error("could not create the first administrator");
    await tx
      .insert(memberships)
      .values({ userId: admin.id, orgId: org.id, roleId: roleIds.get("admin") as string });
    return ctx.config.adminPassword
      ? { adminCreated: true }
      : { adminCreated: true, generatedPassword: password };
  });
}
