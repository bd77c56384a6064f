import { t } from "elysia";
import { pageInfo } from "#routes/dashboard/_shared/page.ts";
import { route } from "#server/http/route.ts";
import { renderPolicies } from "./_page.tsx";

export const GET = route({
  access: "policies:read",
  summary: "The deployment's policies: prompt template, retrieval, guardrails, rate limit and quota",
  html: true,
  params: t.Object({ id: t.String() }),
  query: t.Object({ saved: t.Optional(t.String({ maxLength: 32 })) }),
  handler: async ({ ctx, request, params, query }) =>
    renderPolicies(ctx, await pageInfo(ctx, request), params.id, undefined, query.saved),
});
