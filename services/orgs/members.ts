// Who belongs where, read the one way every listing reads it: a membership, or an invitation still
// pending, with its user, its organization and its role's name. An organization's users (rbac), a
// user's organizations and invitations (auth) and SCIM's Users all list from these two queries, each
// adding its own filter and order. The joins lose no row: every foreign key they follow is not null.
import { and, eq, gt, isNull, type SQL } from "drizzle-orm";
import type { Executor } from "#db/client.ts";
import { memberships, organizations, orgInvitations, roles, users } from "#db/schema/index.ts";

/** Memberships with their user, organization and role; the caller adds `where` and `orderBy`. */
export function selectMemberships(db: Executor) {
  return db
    .select({
      userId: users.id,
      email: users.email,
      totpEnabled: users.totpEnabled,
      userUpdatedAt: users.updatedAt,
      orgId: organizations.id,
      orgName: organizations.name,
      roleId: roles.id,
      role: roles.name,
      joinedAt: memberships.createdAt,
      externalId: memberships.externalId,
      displayName: memberships.displayName,
      deactivatedAt: memberships.deactivatedAt,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .innerJoin(organizations, eq(organizations.id, memberships.orgId))
    .innerJoin(roles, eq(roles.id, memberships.roleId))
    .$dynamic();
}

/** Invitations neither accepted nor expired at `now` that `which` selects; the caller adds `orderBy`. */
export function selectPendingInvitations(db: Executor, now: Date, which: SQL) {
  return db
    .select({
      id: orgInvitations.id,
      email: users.email,
      orgId: organizations.id,
      orgName: organizations.name,
      role: roles.name,
      createdAt: orgInvitations.createdAt,
      expiresAt: orgInvitations.expiresAt,
    })
    .from(orgInvitations)
    .innerJoin(users, eq(users.id, orgInvitations.userId))
    .innerJoin(organizations, eq(organizations.id, orgInvitations.orgId))
    .innerJoin(roles, eq(roles.id, orgInvitations.roleId))
    .where(and(which, isNull(orgInvitations.acceptedAt), gt(orgInvitations.expiresAt, now)))
    .$dynamic();
}
