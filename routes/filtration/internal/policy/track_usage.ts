import { t } from "elysia";
import { UsageRecordWire } from "#contracts/internal/policy.ts";
import { route } from "#server/http/route.ts";
import { trackUsage } from "#services/usage/quota.ts";

export const POST = route({
  access: "internal",
  summary:
    "Count one request's tokens and cost (or a batch: `{records: [...]}`) toward the organization's daily quota, spend and budgets",
  bodyLimit: 8 * 1024 * 1024,
  body: t.Union([
    UsageRecordWire,
    t.Object({ records: t.Array(UsageRecordWire, { minItems: 1, maxItems: 10_000 }) }),
  ]),
  response: t.Object({
    tracked: t.Integer({ description: "Requests counted (unknown organizations are skipped)" }),
  }),
  handler: ({ ctx, body }) =>
    trackUsage(
      ctx,
      ("records" in body ? body.records : [body]).map((r) => ({
        orgId: r.org_id,
        deploymentId: r.deployment_id,
        apiKeyId: r.api_key_id,
        promptTokens: r.prompt_tokens,
        completionTokens: r.completion_tokens,
        cost: r.cost,
      })),
    ),
});
