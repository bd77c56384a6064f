import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { Replicas } from "#services/orchestration/deploy-request.ts";
import { scaleDeployment } from "#services/orchestration/deployment-commands.ts";
import { Deployment } from "../_schemas/deployment.ts";

export const POST = route({
  access: "deployments:write",
  summary: "Set how many replicas a deployment runs; the difference is started or stopped",
  description:
    "The deployment keeps its status; new replicas appear in `observed_replicas` as they start (at the " +
    "provider, for remote pools), surplus ones are stopped there. A stopped deployment starts with the new count.",
  body: t.Object({
    deployment_id: t.String({ minLength: 1 }),
    replicas: Replicas,
  }),
  response: Deployment,
  handler: ({ ctx, body }) => scaleDeployment(ctx, body.deployment_id, body.replicas),
});
