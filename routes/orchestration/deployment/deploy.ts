import { t } from "elysia";
import { route } from "../../../server/http/route.ts";
import { deploy } from "../../../services/orchestration/deployments.ts";
import { DeployRequest } from "../_schemas/deployment.ts";

export const POST = route({
  access: "deployments:write",
  summary: "Deploy a model on a pool (status DEPLOYING; poll the status until RUNNING)",
  body: DeployRequest,
  response: t.Object({ deployment_id: t.String(), status: t.String() }),
  status: 201,
  handler: ({ ctx, body }) => deploy(ctx, body),
});
