import { t } from "elysia";

export const Pool = t.Object({
  pool_id: t.String(),
  pool_name: t.String(),
  state: t.String({ description: "Provisioning, Active, Deleting or Failed" }),
  failure_reason: t.Nullable(t.String()),
  owner_type: t.String(),
  owner_id: t.String(),
  provider: t.String(),
  allowed_gpu_types: t.Array(t.String()),
  max_cost_per_hour: t.Nullable(t.Number()),
  is_dedicated: t.Boolean(),
  provider_pool_id: t.Nullable(t.String()),
  scheduling_policy_json: t.String({ description: "JSON text" }),
  size: t.Nullable(
    t.Integer({
      description: "The most replicas (one node each) its deployments may want at once; null: no limit",
    }),
  ),
  node_count: t.Integer(),
  ready_node_count: t.Integer(),
  estimated_cost_per_hour: t.Nullable(
    t.Number({
      description: "US dollars per hour of its deployments' priced replicas; null when none is priced",
    }),
  ),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
});

export const Node = t.Object({
  node_id: t.String(),
  pool_id: t.String(),
  provider: t.String(),
  provider_instance_id: t.String(),
  gpu_allocated: t.Integer(),
  vcpu_allocated: t.Integer(),
  ram_gb_allocated: t.Integer(),
  health_score: t.Integer(),
  state: t.String({ description: "READY, UNHEALTHY (no heartbeat for three intervals) or OFFLINE" }),
  expose_url: t.Nullable(t.String()),
  last_heartbeat_at: t.String({ format: "date-time" }),
  created_at: t.String({ format: "date-time" }),
});
