import { integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { nodeStates } from "../../core/domain.ts";
import { at, belongsTo, createdAt, id } from "./_columns.ts";
import { pools } from "./pools.ts";

/** A pool's inventory: one row per worker/instance, upserted by heartbeats. */
export const nodes = pgTable(
  "nodes",
  {
    id: id(),
    poolId: belongsTo("pool_id", () => pools.id),
    provider: text("provider").notNull(),
    providerInstanceId: text("provider_instance_id").notNull(),
    gpuAllocated: integer("gpu_allocated").notNull().default(0),
    vcpuAllocated: integer("vcpu_allocated").notNull().default(0),
    ramGbAllocated: integer("ram_gb_allocated").notNull().default(0),
    healthScore: integer("health_score").notNull().default(100),
    state: text("state", { enum: nodeStates }).notNull().default("READY"),
    exposeUrl: text("expose_url"),
    lastHeartbeatAt: at("last_heartbeat_at").notNull().defaultNow(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("nodes_pool_instance_key").on(t.poolId, t.providerInstanceId)],
);
export type NodeRow = typeof nodes.$inferSelect;
