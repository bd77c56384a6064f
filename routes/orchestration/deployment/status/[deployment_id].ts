import { route } from "#server/http/route.ts";
import { getDeployment } from "#services/orchestration/deployment-queries.ts";
import { Deployment, DeploymentId } from "../../_schemas/deployment.ts";

export const GET = route({
  access: "deployments:read",
  summary: "A deployment: status, failure reason, replicas and their endpoints, transitions",
  params: DeploymentId,
  response: Deployment,
  handler: ({ ctx, params }) => getDeployment(ctx, params.deployment_id),
});
