import { bigint, date, doublePrecision, index, pgTable, unique, uuid } from "drizzle-orm/pg-core";
import { belongsTo, updatedAt } from "./_columns.ts";
import { organizations } from "./organizations.ts";

/**
 * What an organization spent on one UTC day, per API key and deployment: bumped with usage_counters
 * (services/usage/quota.ts), read by GET /management/spend and the `budget` policy. No foreign keys
 * on the key and deployment: spend outlives them. A playground call has no key (api_key_id null).
 */
export const spendDaily = pgTable(
  "spend_daily",
  {
    orgId: belongsTo("org_id", () => organizations.id),
    apiKeyId: uuid("api_key_id"),
    deploymentId: uuid("deployment_id"),
    /** UTC day, YYYY-MM-DD. */
    day: date("day", { mode: "string" }).notNull(),
    requests: bigint("requests", { mode: "number" }).notNull().default(0),
    promptTokens: bigint("prompt_tokens", { mode: "number" }).notNull().default(0),
    completionTokens: bigint("completion_tokens", { mode: "number" }).notNull().default(0),
    /** In the deployments' price currency. */
    cost: doublePrecision("cost").notNull().default(0),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique("spend_daily_key").on(t.orgId, t.apiKeyId, t.deploymentId, t.day).nullsNotDistinct(),
    index("spend_daily_org_day_idx").on(t.orgId, t.day),
  ],
);
export type SpendDailyRow = typeof spendDaily.$inferSelect;
