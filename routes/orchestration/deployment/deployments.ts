import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { listDeployments } from "#services/orchestration/deployment-queries.ts";
import { Deployment } from "../_schemas/deployment.ts";

export const GET = route({
  access: "deployments:read",
  summary: "The deployments of your organization",
  query: t.Object({ org_id: t.Optional(t.String({ description: "Only this organization's (yours)" })) }),
  response: t.Object({ deployments: t.Array(Deployment) }),
  handler: ({ ctx, query }) => listDeployments(ctx, query),
});
