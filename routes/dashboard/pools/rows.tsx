import { route } from "#server/http/route.ts";
import { actorOf } from "#services/context.ts";
import { listPools } from "#services/orchestration/pools.ts";
import { PoolRows } from "./_view.tsx";

export const GET = route({
  access: "pools:read",
  summary: "The pools table's rows (polled while a pool provisions)",
  html: true,
  handler: async ({ ctx }) => <PoolRows pools={(await listPools(ctx, actorOf(ctx).orgId)).pools} />,
});
