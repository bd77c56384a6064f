import { index, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { createdAt, id } from "./_columns.ts";
import { deployments } from "./deployments.ts";

/** Every state change of a deployment: when, from, to and why. */
export const deploymentTransitions = pgTable(
  "deployment_transitions",
  {
    id: id(),
    deploymentId: uuid("deployment_id")
      .notNull()
      .references(() => deployments.id, { onDelete: "cascade" }),
    fromState: text("from_state"),
    toState: text("to_state").notNull(),
    reason: text("reason"),
    at: createdAt(),
  },
  (t) => [index("deployment_transitions_deployment_idx").on(t.deploymentId, t.at)],
);
export type DeploymentTransitionRow = typeof deploymentTransitions.$inferSelect;
