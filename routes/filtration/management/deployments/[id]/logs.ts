import { t } from "elysia";
import { InferenceLogPage, LogPageQuery } from "#routes/filtration/_schemas/inference-logs.ts";
import { route } from "#server/http/route.ts";
import { deploymentInferenceLogs } from "#services/inference-logs/logs.ts";

export const GET = route({
  access: "logs:read",
  summary: "The inference logs of a deployment, newest first",
  description: "Pages of `limit` entries; pass `next_cursor` as `cursor` for the next (older) page.",
  params: t.Object({ id: t.String() }),
  query: LogPageQuery,
  response: InferenceLogPage,
  handler: ({ ctx, params, query }) => deploymentInferenceLogs(ctx, params.id, query),
});
