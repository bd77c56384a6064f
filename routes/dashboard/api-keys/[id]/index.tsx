import { t } from "elysia";
import { pageInfo } from "../../../../server/dashboard/page.ts";
import { route } from "../../../../server/http/route.ts";
import { apiKeyUsage } from "../../../../services/usage/key-usage.ts";
import { ApiKeyUsagePage } from "../../../../views/api-key-usage.tsx";
import { RangeQuery } from "../../_usage-query.ts";

export const GET = route({
  access: "api_keys:read",
  summary: "An API key's page: its usage over the last hour, day, week or month, and its budget",
  html: true,
  params: t.Object({ id: t.String() }),
  query: RangeQuery,
  handler: async ({ ctx, request, params, query }) => {
    const [page, usage] = await Promise.all([
      pageInfo(ctx, request),
      apiKeyUsage(ctx, params.id, query.range ?? "day"),
    ]);
    return <ApiKeyUsagePage page={page} usage={usage} />;
  },
});
