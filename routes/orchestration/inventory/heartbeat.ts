import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { recordHeartbeat } from "#services/orchestration/inventory.ts";
import { Node } from "../_schemas/pool.ts";

const INT4_MAX = 2_147_483_647;

export const POST = route({
  access: "node",
  summary: "A node's health report, with its pool's node token as Bearer (or X-Internal-API-Key and pool_id)",
  body: t.Object({
    provider: t.Optional(t.String()),
    provider_instance_id: t.String({ description: "The job or instance id at the provider" }),
    // The columns are PostgreSQL integers: a larger count is refused here, not by the database.
    gpu_allocated: t.Optional(t.Integer({ minimum: 0, maximum: INT4_MAX })),
    vcpu_allocated: t.Optional(t.Integer({ minimum: 0, maximum: INT4_MAX })),
    ram_gb_allocated: t.Optional(t.Integer({ minimum: 0, maximum: INT4_MAX })),
    health_score: t.Optional(t.Integer({ minimum: 0, maximum: 100 })),
    state: t.Optional(t.String({ description: "READY (default), UNHEALTHY or OFFLINE" })),
    expose_url: t.Optional(t.String({ description: "URL of the worker" })),
    pool_id: t.Optional(t.String({ description: "Only with X-Internal-API-Key" })),
  }),
  response: t.Object({ node: Node, heartbeat_interval_ms: t.Integer() }),
  handler: ({ ctx, body, headers }) => {
    const authorization = headers.authorization ?? "";
    const nodeToken = /^bearer\s+/i.test(authorization)
      ? authorization.replace(/^bearer\s+/i, "").trim()
      : undefined;
    return recordHeartbeat(ctx, { nodeToken }, body);
  },
});
