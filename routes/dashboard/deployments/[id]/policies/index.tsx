import { t } from "elysia";
import { renderPolicies } from "../../../../../server/dashboard-policies.tsx";
import { pageInfo } from "../../../../../server/dashboard-page.ts";
import { route } from "../../../../../server/http/route.ts";

export const GET = route({
  access: "policies:read",
  summary: "The deployment's policies: prompt template, retrieval, guardrails, rate limit and quota",
  html: true,
  params: t.Object({ id: t.String() }),
  handler: async ({ ctx, request, params }) => renderPolicies(ctx, await pageInfo(ctx, request), params.id),
});
