import { route } from "#server/http/route.ts";
import { recentInferenceLogs } from "#services/inference-logs/logs.ts";
import { InferenceLogPage, LogPageQuery } from "../../_schemas/inference-logs.ts";

export const GET = route({
  access: "logs:read",
  summary: "The recent inference logs of every deployment of your organization, newest first",
  description: "Pages of `limit` entries; pass `next_cursor` as `cursor` for the next (older) page.",
  query: LogPageQuery,
  response: InferenceLogPage,
  handler: ({ ctx, query }) => recentInferenceLogs(ctx, query),
});
