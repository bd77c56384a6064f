import { t } from "elysia";
import { Deployment } from "#routes/orchestration/_schemas/deployment.ts";
import { route } from "#server/http/route.ts";
import { deleteDeployment } from "#services/orchestration/deployment-commands.ts";
import { getDeployment } from "#services/orchestration/deployment-queries.ts";

const Params = t.Object({ id: t.String({ minLength: 1, description: "The deployment's id" }) });

export const GET = route({
  access: "deployments:read",
  summary: "A deployment with its replicas, endpoints and state transitions",
  params: Params,
  response: Deployment,
  handler: ({ ctx, params }) => getDeployment(ctx, params.id),
});

export const DELETE = route({
  access: "deployments:write",
  summary: "Remove a STOPPED or FAILED deployment for good; 409 while it runs (terminate it first)",
  params: Params,
  response: t.Object({ deployment_id: t.String(), deleted: t.Literal(true) }),
  handler: ({ ctx, params }) => deleteDeployment(ctx, params.id),
});
