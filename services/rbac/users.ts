// The users of the active organization and their roles. Two rules keep an organization governable:
// its last admin cannot be demoted, and nobody hands out (or takes away) more than they hold.
import { and, asc, count, eq } from "drizzle-orm";
import { AppError, invalid, notFound } from "#core/errors.ts";
import type { Executor } from "#db/client.ts";
import { memberships, organizations, orgInvitations, roles, users } from "#db/schema/index.ts";
import { mutate } from "../audit/mutate.ts";
import { invitationTtlMs } from "../auth/invitations.ts";
import { normaliseEmail } from "../auth/login.ts";
import { revokeUserSessions } from "../auth/revoke.ts";
import { type Actor, actorOf, type RequestContext } from "../context.ts";
import { hashPassword, passwordProblem } from "../crypto/passwords.ts";
import { selectMemberships, selectPendingInvitations } from "../orgs/members.ts";
import type { Permission } from "../permissions.ts";

/** The built-in role whose holders administer an organization; one must remain. */
export const adminRole = "admin";

export interface OrganizationUser {
  id: string;
  email: string;
  role: string;
  totp_enabled: boolean;
  /** When the user joined this organization. */
  joined_at: string;
}

/**
 * An invitation not yet answered: someone added who is not a member yet (an existing account until it
 * accepts, a new one until its first sign-in; listed alike).
 */
export interface PendingMember {
  /** The invitation's id: what POST /admin/users answered. */
  id: string;
  email: string;
  role: string;
  invited_at: string;
  expires_at: string;
}

export async function listUsers(
  ctx: RequestContext,
): Promise<{ users: OrganizationUser[]; invitations: PendingMember[] }> {
  const { orgId } = actorOf(ctx);
  const rows = await selectMemberships(ctx.db).where(eq(memberships.orgId, orgId)).orderBy(asc(users.email));
  const pending = await selectPendingInvitations(
    ctx.db,
    ctx.clock(),
    eq(orgInvitations.orgId, orgId),
  ).orderBy(asc(users.email));
  return {
    users: rows.map((r) => ({
      id: r.userId,
      email: r.email,
      role: r.role,
      totp_enabled: r.totpEnabled,
      joined_at: r.joinedAt.toISOString(),
    })),
    invitations: pending.map((r) => ({
      id: r.id,
      email: r.email,
      role: r.role,
      invited_at: r.createdAt.toISOString(),
      expires_at: r.expiresAt.toISOString(),
    })),
  };
}

function mustHold(actor: Actor, permissions: string[], what: string) {
  const beyond = permissions.filter((p) => !actor.permissions.has(p as Permission));
  if (beyond.length > 0)
    throw new AppError("forbidden", `${what} carries permissions you do not hold: ${beyond.join(", ")}`);
}

async function adminsOf(tx: Executor, orgId: string): Promise<number> {
  const [row] = await tx
    .select({ n: count() })
    .from(memberships)
    .innerJoin(roles, eq(roles.id, memberships.roleId))
    .where(and(eq(memberships.orgId, orgId), eq(roles.name, adminRole)));
  return row?.n ?? 0;
}

/**
 * A member's e-mail and role, with the organization locked: role changes and removals of one
 * organization take turns, so two admins demoting or removing each other at once cannot both succeed
 * and leave it without one.
 */
async function lockedMembership(tx: Executor, orgId: string, userId: string) {
  await tx
    .select({ id: organizations.id })
    .from(organizations)
    .where(eq(organizations.id, orgId))
    .for("update");
  const [current] = await tx
    .select({ email: users.email, role: roles.name, permissions: roles.permissions })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .innerJoin(roles, eq(roles.id, memberships.roleId))
    .where(and(eq(memberships.orgId, orgId), eq(memberships.userId, userId)));
  if (!current) throw notFound("user");
  return current;
}

export async function setUserRole(
  ctx: RequestContext,
  userId: string,
  roleName: string,
): Promise<{ id: string; email: string; role: string }> {
  const actor = actorOf(ctx);
  return mutate(ctx, "user.role.update", { type: "user", id: userId }, async (tx) => {
    const current = await lockedMembership(tx, actor.orgId, userId);
    // Locked, so a concurrent deletion of the role waits (and then sees this user holding it).
    const [next] = await tx
      .select()
      .from(roles)
      .where(and(eq(roles.orgId, actor.orgId), eq(roles.name, roleName)))
      .for("update");
    if (!next) throw invalid("role", `no role named "${roleName}" in this organization`);
    mustHold(actor, current.permissions, "the user's current role");
    mustHold(actor, next.permissions, "that role");
    if (current.role === adminRole && next.name !== adminRole && (await adminsOf(tx, actor.orgId)) <= 1) {
      throw new AppError("failed_precondition", "the last admin of an organization cannot be demoted");
    }
    await tx
      .update(memberships)
      .set({ roleId: next.id })
      .where(and(eq(memberships.orgId, actor.orgId), eq(memberships.userId, userId)));
    // No session is ended: every request reads the role afresh (session.ts actorFromAccessToken), so
    // the tokens already handed out carry the new role's permissions, and no more, from the next one.
    return {
      result: { id: userId, email: current.email, role: next.name },
      details: { from: current.role, to: next.name },
    };
  });
}

/**
 * Removes a user from the organization (their account and other memberships stay) and ends their
 * sessions in it. The last admin cannot be removed, and nobody removes someone holding more than they.
 */
export async function removeUser(ctx: RequestContext, userId: string): Promise<void> {
  const actor = actorOf(ctx);
  await mutate(ctx, "user.remove", { type: "user", id: userId }, async (tx) => {
    const current = await lockedMembership(tx, actor.orgId, userId);
    mustHold(actor, current.permissions, "the user's role");
    if (current.role === adminRole && (await adminsOf(tx, actor.orgId)) <= 1) {
      throw new AppError("failed_precondition", "the last admin of an organization cannot be removed");
    }
    await tx
      .delete(memberships)
      .where(and(eq(memberships.orgId, actor.orgId), eq(memberships.userId, userId)));
    await revokeUserSessions(tx, userId, ctx.clock(), actor.orgId);
    return { result: undefined, details: { role: current.role } };
  });
}

export interface AddUserInput {
  email: string;
  /** A new account's first password; required whoever the e-mail belongs to (see addUser). */
  password?: string | undefined;
  role: string;
}

/**
 * An administrator adds someone to the organization with a role, and the answer, the audit record and
 * the user list afterwards are the same whether the e-mail has an account or not, so none of them
 * tells an administrator that an account exists (issue 33). Either way the person gets a pending
 * invitation (services/auth/invitations.ts) and becomes a member only by their own act: an account of
 * another organization accepts it (POST /auth/invitations/{id}/accept); an e-mail without an account
 * becomes an account with the first password given here and no organization, and its first sign-in
 * accepts the invitation it was made for. Until then both are listed alike among the pending
 * invitations of GET /admin/users. The password is checked for both. 409 only for someone already a
 * member, whom the administrator sees anyway.
 */
export async function addUser(ctx: RequestContext, input: AddUserInput): Promise<OrganizationUser> {
  const actor = actorOf(ctx);
  const email = normaliseEmail(input.email);
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw invalid("email", "is not an e-mail address");
  const password = input.password ?? "";
  const problem = password ? passwordProblem(password, ctx.config.passwordMinLength) : "is required";
  if (problem) throw invalid("password", problem);
  // Hashed whether or not an account is made, so the time taken does not tell either.
  const passwordHash = await hashPassword(password, ctx.config.passwordHash);
  return mutate(ctx, "user.add", { type: "user" }, async (tx) => {
    const [role] = await tx
      .select()
      .from(roles)
      .where(and(eq(roles.orgId, actor.orgId), eq(roles.name, input.role)))
      .limit(1);
    if (!role) throw invalid("role", `no role named "${input.role}" in this organization`);
    mustHold(actor, role.permissions, "that role");
    const [existing] = await tx.select().from(users).where(eq(users.email, email)).limit(1);
    if (existing) {
      const [member] = await tx
        .select({ userId: memberships.userId })
        .from(memberships)
        .where(and(eq(memberships.orgId, actor.orgId), eq(memberships.userId, existing.id)));
      if (member)
        throw new AppError("already_exists", `${email} is already a member`, {
          fields: [{ field: "email", message: "is already a member of this organization" }],
        });
    }
    // A new account has no organization until its first sign-in accepts the invitation below.
    const userId = existing?.id ?? (await newAccount(tx, email, passwordHash));
    const now = ctx.clock();
    const invitation = await invite(tx, { orgId: actor.orgId, userId, roleId: role.id }, actor, now);
    return {
      result: {
        id: invitation,
        email,
        role: role.name,
        totp_enabled: false,
        joined_at: now.toISOString(),
      },
      target: { type: "user", id: invitation },
      details: { role: role.name },
    };
  });
}

async function newAccount(tx: Executor, email: string, passwordHash: string): Promise<string> {
  const [user] = await tx.insert(users).values({ email, passwordHash }).returning({ id: users.id });
  if (!user) throw new AppError("internal", "the user could not be created");
  return user.id;
}

/** Creates (or renews, with the new role) the pending invitation of an account; returns its id. */
async function invite(
  tx: Executor,
  to: { orgId: string; userId: string; roleId: string },
  actor: Actor,
  now: Date,
): Promise<string> {
  const fresh = {
    roleId: to.roleId,
    // A service account's id is no user's, so its invitations name no inviter (the audit log does).
    createdBy: actor.machine ? null : actor.userId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + invitationTtlMs),
    acceptedAt: null,
  };
  const [row] = await tx
    .insert(orgInvitations)
    .values({ ...to, ...fresh })
    .onConflictDoUpdate({ target: [orgInvitations.orgId, orgInvitations.userId], set: fresh })
    .returning({ id: orgInvitations.id });
  if (!row) throw new AppError("internal", "the invitation could not be created");
  return row.id;
}
