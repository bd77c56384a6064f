// What a deployment's page and its polled part render: the page's info and the deployment's model.
import type { RequestContext } from "#services/context.ts";
import { getDeployment } from "#services/orchestration/deployment-queries.ts";
import { pageInfo } from "../../_shared/page.ts";
import { deploymentModel } from "../_model.ts";

export async function loadDeploymentPage(ctx: RequestContext, request: Request, id: string) {
  const [page, d] = await Promise.all([pageInfo(ctx, request), getDeployment(ctx, id).then(deploymentModel)]);
  return { page, d };
}
