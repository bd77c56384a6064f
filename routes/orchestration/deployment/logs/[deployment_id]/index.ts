import { t } from "elysia";
import { DeploymentId } from "#routes/orchestration/_schemas/deployment.ts";
import { route } from "#server/http/route.ts";
import { readDeploymentLogs } from "#services/orchestration/logs.ts";

const LogLine = t.Object({
  ts: t.String({ format: "date-time" }),
  replica: t.Integer(),
  stream: t.String({ description: "stdout, stderr or system (the orchestrator's notes)" }),
  line: t.String(),
});

export const GET = route({
  access: "deployments:read",
  summary: "The last lines of a deployment's replicas' output (the last 1000 are kept)",
  params: DeploymentId,
  query: t.Object({
    limit: t.Optional(t.Integer({ minimum: 1, maximum: 1000, description: "Default 200" })),
    replica: t.Optional(t.Integer({ minimum: 0 })),
  }),
  response: t.Object({ deployment_id: t.String(), lines: t.Array(LogLine) }),
  handler: ({ ctx, params, query }) => readDeploymentLogs(ctx, params.deployment_id, query),
});
