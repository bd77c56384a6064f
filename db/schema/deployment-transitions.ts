import { index, integer, pgTable, text } from "drizzle-orm/pg-core";
import type { DeploymentState } from "../../core/domain.ts";
import { belongsTo, createdAt, id } from "./_columns.ts";
import { deployments } from "./deployments.ts";

/**
 * Every state change of a deployment: when, from, to and why; and every autoscaling decision, which
 * keeps the state (from = to) and changes the wanted replicas (from_replicas -> to_replicas).
 */
export const deploymentTransitions = pgTable(
  "deployment_transitions",
  {
    id: id(),
    deploymentId: belongsTo("deployment_id", () => deployments.id),
    // Written only by services/orchestration/state-machine.ts, always a deployment state.
    fromState: text("from_state").$type<DeploymentState>(),
    toState: text("to_state").$type<DeploymentState>().notNull(),
    reason: text("reason"),
    /** Set on autoscaling decisions only: the wanted replica count before and after. */
    fromReplicas: integer("from_replicas"),
    toReplicas: integer("to_replicas"),
    at: createdAt(),
  },
  (t) => [index("deployment_transitions_deployment_idx").on(t.deploymentId, t.at)],
);
export type DeploymentTransitionRow = typeof deploymentTransitions.$inferSelect;
