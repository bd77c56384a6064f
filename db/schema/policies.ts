import { sql } from "drizzle-orm";
import { jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { policyTypes } from "../../core/domain.ts";
import type { JsonObject } from "../../core/json.ts";
import { belongsTo, createdAt, id, updatedAt } from "./_columns.ts";
import { apiKeys } from "./api-keys.ts";
import { deployments } from "./deployments.ts";
import { organizations } from "./organizations.ts";

/**
 * One policy of one type for an organization (deployment_id null) or for one of its deployments,
 * which then overrides the organization's policy of that type, or (budgets only) for one API key.
 */
export const policies = pgTable(
  "policies",
  {
    id: id(),
    orgId: belongsTo("org_id", () => organizations.id),
    deploymentId: uuid("deployment_id").references(() => deployments.id, { onDelete: "cascade" }),
    /** A `budget` of one API key (both budgets apply: the key's and the organization's). */
    apiKeyId: uuid("api_key_id").references(() => apiKeys.id, { onDelete: "cascade" }),
    policyType: text("policy_type", { enum: policyTypes }).notNull(),
    /** Validated against the type's schema (core/policies.ts) before it is written. */
    config: jsonb("config").$type<JsonObject>().notNull(),
    updatedBy: uuid("updated_by"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // One organization-wide policy per type, one per type for each deployment, and for each API key.
    uniqueIndex("policies_org_type_key")
      .on(t.orgId, t.policyType)
      .where(sql`${t.deploymentId} is null and ${t.apiKeyId} is null`),
    uniqueIndex("policies_deployment_type_key")
      .on(t.deploymentId, t.policyType)
      .where(sql`${t.deploymentId} is not null`),
    uniqueIndex("policies_api_key_type_key")
      .on(t.apiKeyId, t.policyType)
      .where(sql`${t.apiKeyId} is not null`),
  ],
);
export type PolicyRow = typeof policies.$inferSelect;
