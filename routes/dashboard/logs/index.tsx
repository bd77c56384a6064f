import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { deploymentInferenceLogs, recentInferenceLogs } from "#services/inference-logs/logs.ts";
import { listDeployments } from "#services/orchestration/deployment-queries.ts";
import { pageInfo } from "../_shared/page.ts";
import { InferenceLogsPage } from "./_view.tsx";

export const GET = route({
  access: "logs:read",
  summary: "Recent inference logs, filtered by deployment and outcome",
  html: true,
  query: t.Object({
    deployment: t.Optional(t.String({ maxLength: 64 })),
    outcome: t.Optional(t.Union([t.Literal(""), t.Literal("ok"), t.Literal("error")])),
    cursor: t.Optional(t.String({ maxLength: 32 })),
  }),
  handler: async ({ ctx, request, query }) => {
    const filters = { deployment: query.deployment || undefined, outcome: query.outcome || undefined };
    const logQuery = {
      limit: 50,
      cursor: query.cursor,
      outcome: filters.outcome,
    };
    const [page, logs, deployments] = await Promise.all([
      pageInfo(ctx, request),
      filters.deployment
        ? deploymentInferenceLogs(ctx, filters.deployment, logQuery)
        : recentInferenceLogs(ctx, logQuery),
      ctx.actor?.permissions.has("deployments:read") ? listDeployments(ctx).then((r) => r.deployments) : [],
    ]);
    return (
      <InferenceLogsPage
        page={page}
        items={logs.items}
        nextCursor={logs.next_cursor}
        filters={filters}
        deployments={deployments.map((d) => ({ id: d.deployment_id, name: d.model_name }))}
      />
    );
  },
});
