// The organizations a user belongs to, and moving a session into another of them. An organization the
// user does not belong to is answered as not found, whether it exists or not, so nothing leaks.
import { asc, eq } from "drizzle-orm";
import { AppError, notFound } from "#core/errors.ts";
import { memberships, organizations } from "#db/schema/index.ts";
import { mutate } from "../audit/mutate.ts";
import { actorOf, type RequestContext } from "../context.ts";
import { selectMemberships } from "../orgs/members.ts";
import { passwordSignInAllowed } from "./password-policy.ts";
import { issueSession, membershipOf, type Session } from "./session.ts";

export interface OrganizationMembership {
  id: string;
  name: string;
  role: string;
  /** The organization of the token this request carried. */
  active: boolean;
  joined_at: string;
}

export async function listMyOrganizations(
  ctx: RequestContext,
): Promise<{ organizations: OrganizationMembership[] }> {
  const actor = actorOf(ctx);
  const rows = await selectMemberships(ctx.db)
    .where(eq(memberships.userId, actor.userId))
    .orderBy(asc(memberships.createdAt), asc(organizations.name));
  return {
    organizations: rows.map((r) => ({
      id: r.orgId,
      name: r.orgName,
      role: r.role,
      active: r.orgId === actor.orgId,
      joined_at: r.joinedAt.toISOString(),
    })),
  };
}

/**
 * New tokens for another organization of the user: a new session (a new refresh-token family). The
 * tokens held for the previous organization stay valid until they expire, so two tabs may work in
 * two organizations.
 */
export async function switchOrganization(ctx: RequestContext, orgId: string): Promise<Session> {
  const actor = actorOf(ctx);
  return mutate(ctx, "auth.switch_org", { type: "organization", id: orgId }, async (tx) => {
    if (!(await membershipOf(tx, actor.userId, orgId))) throw notFound("organization");
    // An organization that signs its members in only through its identity provider is not entered
    // with a session begun elsewhere (by a password, or another organization's provider).
    if (!(await passwordSignInAllowed(tx, orgId, actor.email)))
      throw new AppError("forbidden", "this organization signs in through its single sign-on only");
    const session = await issueSession(ctx, tx, { id: actor.userId, email: actor.email }, orgId);
    return { result: session };
  });
}
