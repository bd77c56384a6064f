import { integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { belongsTo, createdAt } from "./_columns.ts";
import { organizations } from "./organizations.ts";

/**
 * The budget alerts already raised: one row per budget, period and threshold, so the audit log gets
 * each alert once however many gateways report spend at the same moment (services/spend/alerts.ts).
 */
export const budgetAlerts = pgTable(
  "budget_alerts",
  {
    orgId: belongsTo("org_id", () => organizations.id),
    /** `organization` or `api_key:<id>`. */
    budget: text("budget").notNull(),
    /** `day:YYYY-MM-DD` or `month:YYYY-MM` (UTC). */
    period: text("period").notNull(),
    /** Percent of the limit: 80 or 100. */
    thresholdPercent: integer("threshold_percent").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.budget, t.period, t.thresholdPercent] })],
);
