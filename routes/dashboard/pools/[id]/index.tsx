import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { listDeployments } from "#services/orchestration/deployment-queries.ts";
import { getPool, poolInventory } from "#services/orchestration/pools.ts";
import { pageInfo } from "../../_shared/page.ts";
import { poolModel } from "../_model.ts";
import { PoolPage } from "../_view.tsx";

export const GET = route({
  access: "pools:read",
  summary: "A pool's page: state, nodes, deployments",
  html: true,
  params: t.Object({ id: t.String() }),
  handler: async ({ ctx, params, request }) => {
    const [page, pool, inventory] = await Promise.all([
      pageInfo(ctx, request),
      getPool(ctx, params.id).then(poolModel),
      poolInventory(ctx, params.id),
    ]);
    const deployments = page.actor.permissions.has("deployments:read")
      ? (await listDeployments(ctx)).deployments.filter((d) => d.pool_id === pool.pool_id)
      : [];
    return <PoolPage page={page} pool={pool} nodes={inventory.nodes} deployments={deployments} />;
  },
});
