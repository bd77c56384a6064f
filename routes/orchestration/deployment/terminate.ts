import { route } from "#server/http/route.ts";
import { terminateDeployment } from "#services/orchestration/deployment-commands.ts";
import { Deployment, DeploymentId } from "../_schemas/deployment.ts";

export const POST = route({
  access: "deployments:write",
  summary: "Terminate a RUNNING deployment (STOPPING, then STOPPED); 409 in any other status",
  body: DeploymentId,
  response: Deployment,
  handler: ({ ctx, body }) => terminateDeployment(ctx, body.deployment_id),
});
