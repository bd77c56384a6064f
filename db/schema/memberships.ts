import { index, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { at, belongsTo, createdAt } from "./_columns.ts";
import { organizations } from "./organizations.ts";
import { roles } from "./roles.ts";
import { users } from "./users.ts";

/** A user belongs to organizations, with one role in each. */
export const memberships = pgTable(
  "memberships",
  {
    userId: belongsTo("user_id", () => users.id),
    orgId: belongsTo("org_id", () => organizations.id),
    roleId: uuid("role_id")
      .notNull()
      .references(() => roles.id),
    createdAt: createdAt(),
    /**
     * Set when the identity provider deactivated the user here (SCIM `active: false`): the membership
     * signs in nowhere and its sessions are refused until reactivated.
     */
    deactivatedAt: at("deactivated_at"),
    /** SCIM `externalId` and `displayName`, as the identity provider sent them. */
    externalId: text("external_id"),
    displayName: text("display_name"),
  },
  (t) => [primaryKey({ columns: [t.userId, t.orgId] }), index("memberships_org_idx").on(t.orgId)],
);
export type MembershipRow = typeof memberships.$inferSelect;
