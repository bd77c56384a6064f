import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { getPool, poolInventory } from "#services/orchestration/pools.ts";
import { PoolLive } from "../_view.tsx";

export const GET = route({
  access: "pools:read",
  summary: "A pool's state and nodes (polled by its page)",
  html: true,
  params: t.Object({ id: t.String() }),
  handler: async ({ ctx, params }) => {
    const [pool, inventory] = await Promise.all([getPool(ctx, params.id), poolInventory(ctx, params.id)]);
    return <PoolLive pool={pool} nodes={inventory.nodes} />;
  },
});
