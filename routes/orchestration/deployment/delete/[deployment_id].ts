import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { deleteDeployment } from "#services/orchestration/deployment-commands.ts";
import { DeploymentId } from "../../_schemas/deployment.ts";

export const DELETE = route({
  access: "deployments:write",
  summary: "Remove a STOPPED or FAILED deployment for good (then 404; its name is free); 409 otherwise",
  params: DeploymentId,
  response: t.Object({ deployment_id: t.String(), deleted: t.Literal(true) }),
  handler: ({ ctx, params }) => deleteDeployment(ctx, params.deployment_id),
});
