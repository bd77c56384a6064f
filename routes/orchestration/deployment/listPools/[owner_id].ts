import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { listPools } from "#services/orchestration/pools.ts";
import { Pool } from "../../_schemas/pool.ts";

export const GET = route({
  access: "pools:read",
  summary: "The pools of an owner (your organization's id: the org_id of /auth/me), with node counts",
  params: t.Object({ owner_id: t.String() }),
  response: t.Object({ pools: t.Array(Pool) }),
  handler: ({ ctx, params }) => listPools(ctx, params.owner_id),
});
