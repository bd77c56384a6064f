// Invitations an administrator of another organization sent the signed-in user. A membership across
// organizations begins only when its holder accepts it, so nobody is added anywhere without consent.
// Another user's invitation is answered as not found, exactly as one that never existed.
import { and, asc, eq, gt, isNull } from "drizzle-orm";
import { AppError, notFound } from "#core/errors.ts";
import type { Executor } from "#db/client.ts";
import { memberships, organizations, orgInvitations, refreshTokens, roles, users } from "#db/schema/index.ts";
import { mutate, writeAudit } from "../audit/mutate.ts";
import { actorOf, type RequestContext } from "../context.ts";
import { selectPendingInvitations } from "../orgs/members.ts";
import type { OrganizationMembership } from "./organizations.ts";

/** How long an invitation may be accepted. */
export const invitationTtlMs = 7 * 24 * 3600 * 1000;

export interface PendingInvitation {
  id: string;
  org_id: string;
  org_name: string;
  role: string;
  created_at: string;
  expires_at: string;
}

export async function listMyInvitations(ctx: RequestContext): Promise<{ invitations: PendingInvitation[] }> {
  const { userId } = actorOf(ctx);
  const rows = await selectPendingInvitations(ctx.db, ctx.clock(), eq(orgInvitations.userId, userId)).orderBy(
    asc(orgInvitations.createdAt),
  );
  return {
    invitations: rows.map((r) => ({
      id: r.id,
      org_id: r.orgId,
      org_name: r.orgName,
      role: r.role,
      created_at: r.createdAt.toISOString(),
      expires_at: r.expiresAt.toISOString(),
    })),
  };
}

/** The signed-in user's pending invitation, locked; anyone else's (or an accepted one) is not found. */
async function pendingInvitation(tx: Executor, userId: string, invitationId: string) {
  const [row] = await tx
    .select()
    .from(orgInvitations)
    .where(
      and(
        eq(orgInvitations.id, invitationId),
        eq(orgInvitations.userId, userId),
        isNull(orgInvitations.acceptedAt),
      ),
    )
    .for("update");
  if (!row) throw notFound("invitation");
  return row;
}

/** Accepting makes the membership, with the invited role; the inviting organization's log records it. */
export async function acceptInvitation(
  ctx: RequestContext,
  invitationId: string,
): Promise<OrganizationMembership> {
  const actor = actorOf(ctx);
  return mutate(ctx, "invitation.accept", { type: "invitation", id: invitationId }, async (tx) => {
    const invitation = await pendingInvitation(tx, actor.userId, invitationId);
    const now = ctx.clock();
    if (invitation.expiresAt <= now) throw new AppError("failed_precondition", "the invitation has expired");
    const [org] = await tx
      .select({ name: organizations.name })
      .from(organizations)
      .where(eq(organizations.id, invitation.orgId));
    const [role] = await tx.select({ name: roles.name }).from(roles).where(eq(roles.id, invitation.roleId));
    if (!org || !role) throw notFound("invitation");
    // A membership made meanwhile (SCIM, another invitation path) stays as it is.
    const [membership] = await tx
      .insert(memberships)
      .values({ userId: actor.userId, orgId: invitation.orgId, roleId: invitation.roleId })
      .onConflictDoNothing()
      .returning();
    await tx.update(orgInvitations).set({ acceptedAt: now }).where(eq(orgInvitations.id, invitation.id));
    return {
      result: {
        id: invitation.orgId,
        name: org.name,
        role: role.name,
        active: invitation.orgId === actor.orgId,
        joined_at: (membership?.createdAt ?? now).toISOString(),
      },
      details: { role: role.name, invitation_id: invitation.id },
      target: { type: "user", id: actor.userId },
      actor: { orgId: invitation.orgId, actorId: actor.userId, actorLabel: actor.email },
    };
  });
}

/** Declining deletes the invitation; the inviting organization's log records it. */
export async function declineInvitation(ctx: RequestContext, invitationId: string): Promise<void> {
  const actor = actorOf(ctx);
  await mutate(ctx, "invitation.decline", { type: "invitation", id: invitationId }, async (tx) => {
    const invitation = await pendingInvitation(tx, actor.userId, invitationId);
    await tx.delete(orgInvitations).where(eq(orgInvitations.id, invitation.id));
    return {
      result: undefined,
      details: { invitation_id: invitation.id },
      target: { type: "user", id: actor.userId },
      actor: { orgId: invitation.orgId, actorId: actor.userId, actorLabel: actor.email },
    };
  });
}

/**
 * The first sign-in of an account an administrator made (POST /admin/users with an e-mail that had no
 * account): it has no membership and never had a session, and signing in with the first password is
 * its holder's act of joining, so the oldest pending invitation (the one the account was made for)
 * becomes the membership. Any other account accepts its invitations itself. Returns the organization
 * joined, or undefined when there is none to join.
 */
export async function joinOnFirstSignIn(
  ctx: RequestContext,
  user: { id: string; email: string },
): Promise<string | undefined> {
  return ctx.db.transaction(async (tx) => {
    // Locked: two first sign-ins at once join once.
    await tx.select({ id: users.id }).from(users).where(eq(users.id, user.id)).for("update");
    const [member] = await tx
      .select({ orgId: memberships.orgId })
      .from(memberships)
      .where(eq(memberships.userId, user.id))
      .limit(1);
    if (member) return undefined;
    const [session] = await tx
      .select({ id: refreshTokens.id })
      .from(refreshTokens)
      .where(eq(refreshTokens.userId, user.id))
      .limit(1);
    if (session) return undefined;
    const now = ctx.clock();
    const [invitation] = await tx
      .select()
      .from(orgInvitations)
      .where(
        and(
          eq(orgInvitations.userId, user.id),
          isNull(orgInvitations.acceptedAt),
          gt(orgInvitations.expiresAt, now),
        ),
      )
      .orderBy(asc(orgInvitations.createdAt))
      .limit(1);
    if (!invitation) return undefined;
    await tx
      .insert(memberships)
      .values({ userId: user.id, orgId: invitation.orgId, roleId: invitation.roleId });
    await tx.update(orgInvitations).set({ acceptedAt: now }).where(eq(orgInvitations.id, invitation.id));
    await writeAudit(tx, ctx, {
      action: "invitation.accept",
      outcome: "success",
      orgId: invitation.orgId,
      actorId: user.id,
      actorLabel: user.email,
      target: { type: "user", id: user.id },
      details: { invitation_id: invitation.id, first_sign_in: true },
    });
    return invitation.orgId;
  });
}
