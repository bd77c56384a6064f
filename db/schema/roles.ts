import { boolean, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { belongsTo, createdAt, id, updatedAt } from "./_columns.ts";
import { organizations } from "./organizations.ts";

export const roles = pgTable(
  "roles",
  {
    id: id(),
    orgId: belongsTo("org_id", () => organizations.id),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    /** `resource:action` strings from services/permissions.ts. */
    permissions: text("permissions").array().notNull().default([]),
    builtin: boolean("builtin").notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("roles_org_name_key").on(t.orgId, t.name)],
);
export type RoleRow = typeof roles.$inferSelect;
