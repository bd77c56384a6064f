import { route } from "#server/http/route.ts";
import { startDeployment } from "#services/orchestration/deployment-commands.ts";
import { Deployment, DeploymentId } from "../_schemas/deployment.ts";

export const POST = route({
  access: "deployments:write",
  summary: "Start a STOPPED or FAILED deployment again (DEPLOYING); 409 in any other status",
  body: DeploymentId,
  response: Deployment,
  handler: ({ ctx, body }) => startDeployment(ctx, body.deployment_id),
});
