// The inventory heartbeat a node sends to the orchestration gateway (POST /inventory/heartbeat), written
// once: the route checks it, services/orchestration/inventory.ts records it, the llama.cpp worker sends it.
import { type Static, Type as T } from "@sinclair/typebox";

const INT4_MAX = 2_147_483_647;

export const Heartbeat = T.Object({
  provider: T.Optional(T.String()),
  provider_instance_id: T.String({ description: "The job or instance id at the provider" }),
  // The columns are PostgreSQL integers: a larger count is refused here, not by the database.
  gpu_allocated: T.Optional(T.Integer({ minimum: 0, maximum: INT4_MAX })),
  vcpu_allocated: T.Optional(T.Integer({ minimum: 0, maximum: INT4_MAX })),
  ram_gb_allocated: T.Optional(T.Integer({ minimum: 0, maximum: INT4_MAX })),
  health_score: T.Optional(T.Integer({ minimum: 0, maximum: 100 })),
  state: T.Optional(T.String({ description: "READY (default), UNHEALTHY or OFFLINE" })),
  expose_url: T.Optional(T.String({ description: "URL of the worker" })),
  pool_id: T.Optional(T.String({ description: "Only with X-Internal-API-Key" })),
});
export type Heartbeat = Static<typeof Heartbeat>;
