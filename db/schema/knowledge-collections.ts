import { pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { belongsTo, createdAt, id, updatedAt } from "./_columns.ts";
import { organizations } from "./organizations.ts";

export const knowledgeCollections = pgTable(
  "knowledge_collections",
  {
    id: id(),
    orgId: belongsTo("org_id", () => organizations.id),
    name: text("name").notNull(),
    description: text("description"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("knowledge_collections_org_name_key").on(t.orgId, t.name)],
);
export type KnowledgeCollectionRow = typeof knowledgeCollections.$inferSelect;
