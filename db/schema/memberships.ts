import { index, pgTable, primaryKey, uuid } from "drizzle-orm/pg-core";
import { belongsTo, createdAt } from "./_columns.ts";
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
  },
  (t) => [primaryKey({ columns: [t.userId, t.orgId] }), index("memberships_org_idx").on(t.orgId)],
);
export type MembershipRow = typeof memberships.$inferSelect;
