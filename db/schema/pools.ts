import { boolean, doublePrecision, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { poolStates, providerIds } from "../../core/domain.ts";
import type { SchedulingPolicy } from "../../core/options.ts";
import { belongsTo, createdAt, id, updatedAt } from "./_columns.ts";
import { organizations } from "./organizations.ts";

export const pools = pgTable(
  "pools",
  {
    id: id(),
    orgId: belongsTo("org_id", () => organizations.id),
    name: text("name").notNull(),
    ownerType: text("owner_type").notNull().default("org"),
    ownerId: text("owner_id").notNull(),
    provider: text("provider", { enum: providerIds }).notNull(),
    allowedGpuTypes: text("allowed_gpu_types").array().notNull().default([]),
    maxCostPerHour: doublePrecision("max_cost_per_hour"),
    /**
     * The pool's size: the most replicas its deployments may want at once (each replica is one node:
     * a worker process, a pod, a VM, a lease or a job). Null: no limit but the provider's.
     */
    size: integer("size"),
    isDedicated: boolean("is_dedicated").notNull().default(false),
    providerPoolId: text("provider_pool_id"),
    schedulingPolicy: jsonb("scheduling_policy").$type<SchedulingPolicy>().notNull().default({}),
    /** Written by the reconciler only. */
    state: text("state", { enum: poolStates }).notNull().default("Provisioning"),
    failureReason: text("failure_reason"),
    /** SHA-256 of the node token returned once at creation; workers send the token with heartbeats. */
    nodeTokenHash: text("node_token_hash").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("pools_org_name_key").on(t.orgId, t.name),
    uniqueIndex("pools_node_token_key").on(t.nodeTokenHash),
  ],
);
export type PoolRow = typeof pools.$inferSelect;
