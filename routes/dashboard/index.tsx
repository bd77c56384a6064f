import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { defaultUsageRange, usageOverview } from "#services/usage/overview.ts";
import { HomePage } from "./_home.tsx";
import { can, pageInfo } from "./_shared/page.ts";
import { RangeQuery } from "./_shared/usage-query.ts";

export const GET = route({
  access: "authenticated",
  summary: "Overview: the organization's requests, tokens, errors, latency and spend over time",
  html: true,
  query: t.Object({ ...RangeQuery.properties, deployment: t.Optional(t.String({ format: "uuid" })) }),
  handler: async ({ ctx, request, query }) => {
    const page = await pageInfo(ctx, request);
    // The charts are the inference logs added up: a role that may not read those sees the checklist.
    if (!can(page, "logs:read")) return <HomePage page={page} />;
    // Without ?range=, the shortest range that holds the traffic (a new installation's: the hour).
    const range = query.range ?? (await defaultUsageRange(ctx));
    const overview = await usageOverview(ctx, { range });
    return <HomePage page={page} usage={{ overview, deploymentId: query.deployment }} />;
  },
});
