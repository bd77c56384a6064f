// Self-service sign-up, open only while ALLOW_REGISTRATION is true. Without an organization name the
// user joins the default organization as a viewer (never more); with one, a new organization (a new
// tenant) is created with its built-in roles and the user is its admin. The answer is a session, as
// from /auth/login, so a client signs up and is signed in with one call.
import { and, eq } from "drizzle-orm";
import { AppError, invalid } from "#core/errors.ts";
import type { Executor } from "#db/client.ts";
import { memberships, organizations, roles, users } from "#db/schema/index.ts";
import { isUniqueViolation } from "#db/unique-violation.ts";
import { mutate } from "../audit/mutate.ts";
import type { RequestContext } from "../context.ts";
import { hashPassword, passwordProblem } from "../crypto/passwords.ts";
import { defaultOrganizationName } from "../orgs/bootstrap.ts";
import { ensureBuiltinRoles } from "../orgs/builtin-roles.ts";
import { normaliseEmail } from "./login.ts";
import { issueSession, type Session } from "./session.ts";

export interface RegisterInput {
  email: string;
  password: string;
  organization_name?: string | undefined;
}

const emailTaken = () => new AppError("already_exists", "an account with this e-mail already exists");
const organizationTaken = () =>
  new AppError("already_exists", "an organization with this name already exists");

export async function register(ctx: RequestContext, input: RegisterInput): Promise<Session> {
  if (!ctx.config.allowRegistration) throw new AppError("forbidden", "registration is closed");
  const email = normaliseEmail(input.email);
  const problem = passwordProblem(input.password, ctx.config.passwordMinLength);
  if (problem) throw invalid("password", problem);
  const organizationName = input.organization_name?.trim();
  if (organizationName === "") throw invalid("organization_name", "must not be blank");
  // Hashed before the transaction: argon2 is slow, and the answer for a taken e-mail then takes as
  // long as a successful sign-up.
  const passwordHash = await hashPassword(input.password, ctx.config.passwordHash);

  return mutate(ctx, "auth.register", { type: "user" }, async (tx) => {
    const [existing] = await tx.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1);
    if (existing) throw emailTaken();
    const { orgId, roleId, role } = organizationName
      ? await newOrganization(tx, organizationName)
      : await defaultOrganizationViewer(tx);
    let userId: string;
    try {
      const [user] = await tx.insert(users).values({ email, passwordHash }).returning({ id: users.id });
      if (!user) throw new Error("the user row was not returned");
      userId = user.id;
    } catch (error) {
      throw isUniqueViolation(error) ? emailTaken() : error;
    }
    await tx.insert(memberships).values({ userId, orgId, roleId });
    const session = await issueSession(ctx, tx, { id: userId, email }, orgId);
    return {
      result: session,
      target: { type: "user", id: userId },
      details: { organization_id: orgId, role, new_organization: organizationName !== undefined },
      actor: { orgId, actorId: userId, actorLabel: email },
    };
  });
}

async function newOrganization(tx: Executor, name: string) {
  let orgId: string;
  try {
    const [org] = await tx.insert(organizations).values({ name }).returning({ id: organizations.id });
    if (!org) throw new Error("the organization row was not returned");
    orgId = org.id;
  } catch (error) {
    throw isUniqueViolation(error) ? organizationTaken() : error;
  }
  const roleIds = await ensureBuiltinRoles(tx, orgId);
  return { orgId, roleId: roleIds.get("admin") as string, role: "admin" };
}

async function defaultOrganizationViewer(tx: Executor) {
  const [row] = await tx
    .select({ orgId: organizations.id, roleId: roles.id })
    .from(organizations)
    .innerJoin(roles, and(eq(roles.orgId, organizations.id), eq(roles.name, "viewer")))
    .where(eq(organizations.name, defaultOrganizationName))
    .limit(1);
  if (!row) throw new Error("the default organization or its viewer role is missing");
  return { ...row, role: "viewer" };
}
