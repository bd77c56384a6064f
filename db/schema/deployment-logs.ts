import { bigserial, index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { belongsTo, createdAt } from "./_columns.ts";
import { deployments } from "./deployments.ts";

/** The last lines of each replica's stdout and stderr, persisted (bounded per deployment). */
export const deploymentLogs = pgTable(
  "deployment_logs",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    deploymentId: belongsTo("deployment_id", () => deployments.id),
    replica: integer("replica").notNull(),
    stream: text("stream", { enum: ["stdout", "stderr", "system"] }).notNull(),
    line: text("line").notNull(),
    ts: createdAt(),
  },
  (t) => [index("deployment_logs_deployment_idx").on(t.deploymentId, t.id)],
);
export type DeploymentLogRow = typeof deploymentLogs.$inferSelect;
