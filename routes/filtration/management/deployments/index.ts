// The management view of deployments (the dashboard's API). The same orchestration services back it;
// both gateways share one database, so this works whether or not orchestration runs in this process
// (its reconciler picks the change up on its next pass).
import { t } from "elysia";
import { Deployment } from "#routes/orchestration/_schemas/deployment.ts";
import { route } from "#server/http/route.ts";
import { DeployAnswer, DeployRequest } from "#services/orchestration/deploy-request.ts";
import { deploy } from "#services/orchestration/deployment-commands.ts";
import { listDeployments } from "#services/orchestration/deployment-queries.ts";

export const GET = route({
  access: "deployments:read",
  summary: "The deployments of your organization",
  response: t.Object({ deployments: t.Array(Deployment) }),
  handler: ({ ctx }) => listDeployments(ctx, {}),
});

export const POST = route({
  access: "deployments:write",
  summary: "Create a deployment (status DEPLOYING; poll its details until RUNNING)",
  body: DeployRequest,
  response: DeployAnswer,
  status: 201,
  handler: ({ ctx, body }) => deploy(ctx, body),
});
