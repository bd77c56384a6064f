import { integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { replicaStates } from "../../core/domain.ts";
import { at, belongsTo, createdAt, id, updatedAt } from "./_columns.ts";
import { deployments } from "./deployments.ts";

/** What the reconciler observed of each replica of a deployment. */
export const replicas = pgTable(
  "replicas",
  {
    id: id(),
    deploymentId: belongsTo("deployment_id", () => deployments.id),
    index: integer("index").notNull(),
    state: text("state", { enum: replicaStates }).notNull().default("PENDING"),
    /** Base URL of the worker's OpenAI-compatible API, once it is up. */
    endpoint: text("endpoint"),
    providerInstanceId: text("provider_instance_id"),
    restarts: integer("restarts").notNull().default(0),
    lastError: text("last_error"),
    startedAt: at("started_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("replicas_deployment_index_key").on(t.deploymentId, t.index)],
);
export type ReplicaRow = typeof replicas.$inferSelect;
