import { doublePrecision, integer, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";

/**
 * The load each inference gateway process sees per deployment, when the shared store is PostgreSQL
 * (DATABASE_URL without REDIS_URL): one row per (deployment, reporting process), rewritten every
 * report; a row older than the report's time to live no longer counts (its process stopped).
 */
export const deploymentLoadReports = pgTable(
  "deployment_load_reports",
  {
    // No foreign key: a report may race a deployment's removal, and expired rows are swept anyway.
    deploymentId: uuid("deployment_id").notNull(),
    /** A random id of the gateway process, new at each start. */
    reporterId: text("reporter_id").notNull(),
    inFlight: integer("in_flight").notNull().default(0),
    queued: integer("queued").notNull().default(0),
    tokensPerSecond: doublePrecision("tokens_per_second").notNull().default(0),
    /** The report's time plus its time to live, on the database's clock (reporters' clocks need not agree). */
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.deploymentId, t.reporterId] })],
);
export type DeploymentLoadReportRow = typeof deploymentLoadReports.$inferSelect;
