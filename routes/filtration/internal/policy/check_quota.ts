import { QuotaAnswer, QuotaCheck } from "#contracts/internal/policy.ts";
import { route } from "#server/http/route.ts";
import { checkQuota } from "#services/usage/quota.ts";

export const POST = route({
  access: "internal",
  summary: "May the organization make one more request today (its `quota` policy)?",
  description:
    "Refused when today's requests reached `requests_per_day`, or today's tokens plus `tokens` (the coming " +
    "request's estimate) would pass `tokens_per_day`. Days are UTC; `reset_at` is the next midnight.",
  body: QuotaCheck,
  response: QuotaAnswer,
  handler: ({ ctx, body }) =>
    checkQuota(ctx, { orgId: body.org_id, deploymentId: body.deployment_id, tokens: body.tokens }),
});
