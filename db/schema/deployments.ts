import { sql } from "drizzle-orm";
import { doublePrecision, integer, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { deploymentStates, desiredStates, engineIds } from "../../core/domain.ts";
import type { DeploymentConfiguration } from "../../core/options.ts";
import { at, belongsTo, createdAt, id, updatedAt } from "./_columns.ts";
import { organizations } from "./organizations.ts";
import { pools } from "./pools.ts";

export const deployments = pgTable(
  "deployments",
  {
    id: id(),
    orgId: belongsTo("org_id", () => organizations.id),
    /** The deployment name: the `model` of inference calls (the spec's `model_name`). */
    name: text("name").notNull(),
    modelVersion: text("model_version"),
    poolId: uuid("pool_id")
      .notNull()
      .references(() => pools.id),
    engine: text("engine", { enum: engineIds }).notNull(),
    workloadType: text("workload_type").notNull().default("inference"),
    /**
     * The model source as given (path, file://, http(s)://, registry://); for a hosted upstream (`external`),
     * the model name sent upstream (null: the deployment name).
     */
    inferenceModel: text("inference_model"),
    /** "" where no image runs (hosted upstreams). */
    image: text("image").notNull(),
    replicas: integer("replicas").notNull().default(1),
    gpuPerReplica: integer("gpu_per_replica").notNull().default(0),
    configuration: jsonb("configuration").$type<DeploymentConfiguration>().notNull().default({}),
    ownerId: text("owner_id"),
    desiredState: text("desired_state", { enum: desiredStates }).notNull().default("running"),
    /** Written by the reconciler (and the state machine) only. */
    status: text("status", { enum: deploymentStates }).notNull().default("DEPLOYING"),
    failureReason: text("failure_reason"),
    estimatedCostPerHour: doublePrecision("estimated_cost_per_hour"),
    /** What a million tokens cost, in the operator's currency: each request's `cost` (services/spend). */
    inputPricePerMillion: doublePrecision("input_price_per_million"),
    outputPricePerMillion: doublePrecision("output_price_per_million"),
    /** What a million prompt tokens the engine reused (cached_tokens) cost; null: the input price. */
    cachedInputPricePerMillion: doublePrecision("cached_input_price_per_million"),
    deletedAt: at("deleted_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // Names are unique among the deployments not deleted: a deleted name can be used again.
    uniqueIndex("deployments_org_name_live_key").on(t.orgId, t.name).where(sql`${t.deletedAt} is null`),
  ],
);
export type DeploymentRow = typeof deployments.$inferSelect;
