import { jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { providerIds } from "../../core/domain.ts";
import type { ProviderSettings } from "../../core/options.ts";
import { belongsTo, createdAt, id, updatedAt } from "./_columns.ts";
import { organizations } from "./organizations.ts";

/** An organization's settings and credentials for one compute provider. */
export const providerConfigs = pgTable(
  "provider_configs",
  {
    id: id(),
    orgId: belongsTo("org_id", () => organizations.id),
    provider: text("provider", { enum: providerIds }).notNull(),
    /** Not secret: region, namespace, endpoints... */
    settings: jsonb("settings").$type<ProviderSettings>().notNull().default({}),
    /** The credentials object as JSON, sealed with services/crypto/secret-box.ts; null when none. */
    credentialsSealed: text("credentials_sealed"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("provider_configs_org_provider_key").on(t.orgId, t.provider)],
);
export type ProviderConfigRow = typeof providerConfigs.$inferSelect;
