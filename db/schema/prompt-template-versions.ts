import { integer, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { belongsTo, createdAt } from "./_columns.ts";
import { promptTemplates } from "./prompt-templates.ts";

/** Every version of a template, kept: an update adds a row, it never rewrites one. */
export const promptTemplateVersions = pgTable(
  "prompt_template_versions",
  {
    templateId: belongsTo("template_id", () => promptTemplates.id),
    version: integer("version").notNull(),
    name: text("name").notNull(),
    systemPrompt: text("system_prompt"),
    /** Holds `{{input}}` (the caller's last user message) and may hold `{{context}}`. */
    userTemplate: text("user_template"),
    createdBy: uuid("created_by"),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.templateId, t.version] })],
);
export type PromptTemplateVersionRow = typeof promptTemplateVersions.$inferSelect;
