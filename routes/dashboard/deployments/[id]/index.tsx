import { t } from "elysia";
import { route } from "../../../../server/http/route.ts";
import { getDeployment } from "../../../../services/orchestration/deployments.ts";
import { pageInfo } from "../../_shared/page.ts";
import { deploymentModel } from "../_model.ts";
import { DeploymentPage } from "./_view.tsx";

export const GET = route({
  access: "deployments:read",
  summary: "A deployment's page: state, replicas, transitions, actions and live logs",
  html: true,
  params: t.Object({ id: t.String() }),
  handler: async ({ ctx, params, request }) => {
    const [page, d] = await Promise.all([
      pageInfo(ctx, request),
      getDeployment(ctx, params.id).then(deploymentModel),
    ]);
    return <DeploymentPage page={page} d={d} />;
  },
});
