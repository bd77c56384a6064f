import { index, pgTable, primaryKey, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./_columns.ts";
import { organizations } from "./organizations.ts";
import { roles } from "./roles.ts";
import { users } from "./users.ts";

/** A user belongs to organizations, with one role in each. */
export const memberships = pgTable(
  "memberships",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    roleId: uuid("role_id")
      .notNull()
      .references(() => roles.id),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.orgId] }), index("memberships_org_idx").on(t.orgId)],
);
export type MembershipRow = typeof memberships.$inferSelect;
