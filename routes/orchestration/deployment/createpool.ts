import { t } from "elysia";
import { route } from "../../../server/http/route.ts";
import { createPool } from "../../../services/orchestration/pools.ts";
import { Pool } from "../_schemas/pool.ts";

export const POST = route({
  access: "pools:write",
  summary: "Create a compute pool (Provisioning, then Active); the node token is returned once",
  body: t.Object({
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
  }),
  response: t.Composite([
    Pool,
    t.Object({ node_token: t.String({ description: "Nodes send it with heartbeats; shown only here" }) }),
  ]),
  status: 201,
  handler: ({ ctx, body }) => createPool(ctx, body),
});
