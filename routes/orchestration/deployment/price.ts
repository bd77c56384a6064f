import { route } from "#server/http/route.ts";
import { setDeploymentPrice } from "#services/orchestration/deployment-commands.ts";
import { Deployment, PriceRequest } from "../_schemas/deployment.ts";

export const POST = route({
  access: "deployments:write",
  summary: "Set or clear a deployment's prices per million input and output tokens",
  description:
    "A price left out stays as it is; null clears it. Calls are charged at the new prices within a second; " +
    "requests already logged keep their cost.",
  body: PriceRequest,
  response: Deployment,
  handler: ({ ctx, body }) => setDeploymentPrice(ctx, body),
});
