import { integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { belongsTo, createdAt, id, updatedAt } from "./_columns.ts";
import { organizations } from "./organizations.ts";

/** A prompt template's stable identity; its content lives in prompt_template_versions. */
export const promptTemplates = pgTable(
  "prompt_templates",
  {
    id: id(),
    orgId: belongsTo("org_id", () => organizations.id),
    /** The latest version's name, unique in the organization. */
    name: text("name").notNull(),
    latestVersion: integer("latest_version").notNull().default(1),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("prompt_templates_org_name_key").on(t.orgId, t.name)],
);
export type PromptTemplateRow = typeof promptTemplates.$inferSelect;
