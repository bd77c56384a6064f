import { route } from "#server/http/route.ts";
import { DeployAnswer, DeployRequest } from "#services/orchestration/deploy-request.ts";
import { deploy } from "#services/orchestration/deployment-commands.ts";

export const POST = route({
  access: "deployments:write",
  summary: "Deploy a model on a pool (status DEPLOYING; poll the status until RUNNING)",
  body: DeployRequest,
  response: DeployAnswer,
  status: 201,
  handler: ({ ctx, body }) => deploy(ctx, body),
});
