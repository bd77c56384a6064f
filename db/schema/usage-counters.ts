import { bigint, date, pgTable, primaryKey } from "drizzle-orm/pg-core";
import { belongsTo, updatedAt } from "./_columns.ts";
import { organizations } from "./organizations.ts";

/** What an organization used on one UTC day: the `quota` policy is checked against it. */
export const usageCounters = pgTable(
  "usage_counters",
  {
    orgId: belongsTo("org_id", () => organizations.id),
    /** UTC day, YYYY-MM-DD. */
    day: date("day", { mode: "string" }).notNull(),
    requests: bigint("requests", { mode: "number" }).notNull().default(0),
    promptTokens: bigint("prompt_tokens", { mode: "number" }).notNull().default(0),
    completionTokens: bigint("completion_tokens", { mode: "number" }).notNull().default(0),
    totalTokens: bigint("total_tokens", { mode: "number" }).notNull().default(0),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.day] })],
);
export type UsageCounterRow = typeof usageCounters.$inferSelect;
