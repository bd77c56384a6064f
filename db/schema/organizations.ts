import { pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id } from "./_columns.ts";

export const organizations = pgTable(
  "organizations",
  {
    id: id(),
    name: text("name").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("organizations_name_key").on(t.name)],
);
export type OrganizationRow = typeof organizations.$inferSelect;
