import { Type } from "@sinclair/typebox";
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

/** The body of POST /deployment/createpool, and the dashboard's create form. */
export const CreatePoolBody = t.Object({
  pool_name: t.Optional(t.String({ description: "Unique in the organization; generated when absent" })),
  owner_type: t.Optional(t.String({ description: "org (default) or user" })),
  owner_id: t.Optional(t.String({ description: "Your organization's id (or your user id); the default" })),
  provider: t.Optional(
    t.String({ description: "local (default here), external, kubernetes, skypilot, akash, nosana" }),
  ),
  allowed_gpu_types: t.Optional(t.Array(t.String())),
  max_cost_per_hour: t.Optional(t.Nullable(t.Number({ minimum: 0 }))),
  is_dedicated: t.Optional(t.Boolean()),
  provider_pool_id: t.Optional(t.String()),
  scheduling_policy_json: t.Optional(t.String({ description: "JSON text of an object" })),
  // TypeBox's own integer: Elysia's also takes numeric text, which the dashboard's form would keep as text.
  size: t.Optional(
    t.Nullable(
      Type.Integer({
        minimum: 1,
        maximum: 1024,
        description:
          "The pool's size: the most replicas (one node each) its deployments may want at once; absent or null: no limit",
      }),
    ),
  ),
});
