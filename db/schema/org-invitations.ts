import { index, pgTable, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { at, belongsTo, createdAt, id } from "./_columns.ts";
import { organizations } from "./organizations.ts";
import { roles } from "./roles.ts";
import { users } from "./users.ts";

/**
 * An administrator's offer of a membership to an account that already exists (in another
 * organization): it becomes a membership only when its holder accepts it, signed in as themselves, so
 * no token is needed; declining deletes it. One pending invitation per account and organization.
 */
export const orgInvitations = pgTable(
  "org_invitations",
  {
    id: id(),
    orgId: belongsTo("org_id", () => organizations.id),
    userId: belongsTo("user_id", () => users.id),
    /** The role the membership gets; deleting the role withdraws the invitation. */
    roleId: belongsTo("role_id", () => roles.id),
    /** The administrator who sent it; null for a service account (the audit log names it). */
    createdBy: uuid("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    expiresAt: at("expires_at").notNull(),
    acceptedAt: at("accepted_at"),
  },
  (t) => [
    uniqueIndex("org_invitations_org_user_key").on(t.orgId, t.userId),
    index("org_invitations_user_idx").on(t.userId),
  ],
);
export type OrgInvitationRow = typeof orgInvitations.$inferSelect;
