import { t } from "elysia";
import { route } from "../../../../server/http/route.ts";
import { getDeployment } from "../../../../services/orchestration/deployments.ts";
import { pageInfo } from "../../_shared/page.ts";
import { deploymentModel } from "../_model.ts";
import { DeploymentLive } from "./_live.tsx";

export const GET = route({
  access: "deployments:read",
  summary: "A deployment's state, actions, replicas and transitions (polled by its page)",
  html: true,
  params: t.Object({ id: t.String() }),
  handler: async ({ ctx, params, request }) => {
    const [page, d] = await Promise.all([
      pageInfo(ctx, request),
      getDeployment(ctx, params.id).then(deploymentModel),
    ]);
    return <DeploymentLive page={page} d={d} />;
  },
});
