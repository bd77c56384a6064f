import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { deletePool } from "#services/orchestration/pools.ts";
import { Pool } from "../../_schemas/pool.ts";

export const POST = route({
  access: "pools:write",
  summary:
    "Delete a pool (Deleting, then gone, with its stopped deployments); 409 while deployments on it are not stopped",
  params: t.Object({ pool_id: t.String() }),
  response: Pool,
  handler: ({ ctx, params }) => deletePool(ctx, params.pool_id),
});
