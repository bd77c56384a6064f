import { boolean, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { belongsTo, createdAt, id } from "./_columns.ts";
import { organizations } from "./organizations.ts";

/** The model registry: versions of a model, each with its backend and artifact. */
export const models = pgTable(
  "models",
  {
    id: id(),
    orgId: belongsTo("org_id", () => organizations.id),
    name: text("name").notNull(),
    version: text("version").notNull(),
    backend: text("backend").notNull(),
    artifactUri: text("artifact_uri"),
    /** Other organizations may deploy its artifact file by path (unshared: refused as if missing). */
    shared: boolean("shared").notNull().default(false),
    config: jsonb("config").$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("models_org_name_version_key").on(t.orgId, t.name, t.version)],
);
export type ModelRow = typeof models.$inferSelect;
