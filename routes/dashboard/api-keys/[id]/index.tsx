import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { apiKeyUsage } from "#services/usage/key-usage.ts";
import { pageInfo } from "../../_shared/page.ts";
import { RangeQuery } from "../../_shared/usage-query.ts";
import { ApiKeyUsagePage } from "./_view.tsx";

export const GET = route({
  access: "api_keys:read",
  summary: "An API key's page: its usage over the last hour, day, week or month, and its budget",
  html: true,
  params: t.Object({ id: t.String() }),
  query: RangeQuery,
  handler: async ({ ctx, request, params, query }) => {
    const [page, usage] = await Promise.all([
      pageInfo(ctx, request),
      // Without ?range=, the shortest range that holds the key's traffic (services/usage/key-usage.ts).
      apiKeyUsage(ctx, params.id, query.range),
    ]);
    return <ApiKeyUsagePage page={page} usage={usage} />;
  },
});
