import { t } from "elysia";
import { Heartbeat } from "#contracts/orchestration/heartbeat.ts";
import { route } from "#server/http/route.ts";
import { recordHeartbeat } from "#services/orchestration/inventory.ts";
import { Node } from "../_schemas/pool.ts";

export const POST = route({
  access: "node",
  summary: "A node's health report, with its pool's node token as Bearer (or X-Internal-API-Key and pool_id)",
  body: Heartbeat,
  response: t.Object({ node: Node, heartbeat_interval_ms: t.Integer() }),
  handler: ({ ctx, body, headers }) => {
    const authorization = headers.authorization ?? "";
    const nodeToken = /^bearer\s+/i.test(authorization)
      ? authorization.replace(/^bearer\s+/i, "").trim()
      : undefined;
    return recordHeartbeat(ctx, { nodeToken }, body);
  },
});
