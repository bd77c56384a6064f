import { t } from "elysia";
import { Node } from "#routes/orchestration/_schemas/pool.ts";
import { route } from "#server/http/route.ts";
import { poolInventory } from "#services/orchestration/pools.ts";

export const GET = route({
  access: "pools:read",
  summary: "The nodes of a pool, as their last heartbeats reported them",
  params: t.Object({ pool_id: t.String() }),
  response: t.Object({ pool_id: t.String(), nodes: t.Array(Node) }),
  handler: ({ ctx, params }) => poolInventory(ctx, params.pool_id),
});
