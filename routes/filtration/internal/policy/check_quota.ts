import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { checkQuota } from "#services/usage/quota.ts";
import { Uuid } from "../../_schemas/internal.ts";

export const POST = route({
  access: "internal",
  summary: "May the organization make one more request today (its `quota` policy)?",
  description:
    "Refused when today's requests reached `requests_per_day`, or today's tokens plus `tokens` (the coming " +
    "request's estimate) would pass `tokens_per_day`. Days are UTC; `reset_at` is the next midnight.",
  body: t.Object({
    org_id: Uuid,
    deployment_id: t.Optional(Uuid),
    tokens: t.Optional(t.Integer({ minimum: 0 })),
  }),
  response: t.Object({
    allowed: t.Boolean(),
    remaining_requests: t.Optional(t.Integer()),
    remaining_tokens: t.Optional(t.Integer()),
    used_requests: t.Integer({ description: "Requests counted today so far" }),
    used_tokens: t.Integer({ description: "Tokens counted today so far" }),
    reset_at: t.String({ format: "date-time" }),
  }),
  handler: ({ ctx, body }) =>
    checkQuota(ctx, { orgId: body.org_id, deploymentId: body.deployment_id, tokens: body.tokens }),
});
