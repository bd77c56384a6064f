import { t } from "elysia";
import { pageInfo } from "../../../../server/dashboard/page.ts";
import { route } from "../../../../server/http/route.ts";
import { getDeployment } from "../../../../services/orchestration/deployments.ts";
import { DeploymentPage } from "../../../../views/deployments.tsx";

export const GET = route({
  access: "deployments:read",
  summary: "A deployment's page: state, replicas, transitions, actions and live logs",
  html: true,
  params: t.Object({ id: t.String() }),
  handler: async ({ ctx, params, request }) => {
    const [page, d] = await Promise.all([pageInfo(ctx, request), getDeployment(ctx, params.id)]);
    return <DeploymentPage page={page} d={d} />;
  },
});
