// The users of the active organization and their roles. Two rules keep an organization governable:
// its last admin cannot be demoted, and nobody hands out (or takes away) more than they hold.
import { and, asc, count, eq } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { memberships, organizations, roles, users } from "../../db/schema/index.ts";
import { mutate } from "../audit/mutate.ts";
import { type Actor, actorOf, type RequestContext } from "../context.ts";
import { AppError, invalid, notFound } from "../errors.ts";
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

export async function listUsers(ctx: RequestContext): Promise<{ users: OrganizationUser[] }> {
  const { orgId } = actorOf(ctx);
  const rows = await ctx.db
    .select({
      id: users.id,
      email: users.email,
      role: roles.name,
      totpEnabled: users.totpEnabled,
      joinedAt: memberships.createdAt,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .innerJoin(roles, eq(roles.id, memberships.roleId))
    .where(eq(memberships.orgId, orgId))
    .orderBy(asc(users.email));
  return {
    users: rows.map((r) => ({
      id: r.id,
      email: r.email,
      role: r.role,
      totp_enabled: r.totpEnabled,
      joined_at: r.joinedAt.toISOString(),
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

export async function setUserRole(
  ctx: RequestContext,
  userId: string,
  roleName: string,
): Promise<{ id: string; email: string; role: string }> {
  const actor = actorOf(ctx);
  return mutate(ctx, "user.role.update", { type: "user", id: userId }, async (tx) => {
    // Role changes of one organization take turns, so two admins demoting each other at once cannot
    // both succeed and leave it without one.
    await tx
      .select({ id: organizations.id })
      .from(organizations)
      .where(eq(organizations.id, actor.orgId))
      .for("update");
    const [current] = await tx
      .select({ email: users.email, role: roles.name, permissions: roles.permissions })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .innerJoin(roles, eq(roles.id, memberships.roleId))
      .where(and(eq(memberships.orgId, actor.orgId), eq(memberships.userId, userId)));
    if (!current) throw notFound("user");
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
    return {
      result: { id: userId, email: current.email, role: next.name },
      details: { from: current.role, to: next.name },
    };
  });
}
