import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { checkBudget } from "#services/spend/budgets.ts";
import { Uuid } from "../../_schemas/internal.ts";

export const POST = route({
  access: "internal",
  summary:
    "May one more call of this API key (or of the organization, without a key) start (`budget` policies)?",
  description:
    "Refused once the key's or the organization's spend today or this month (UTC) reached the budget's limit; " +
    "`message` says which budget, its limit and the spend.",
  body: t.Object({ org_id: Uuid, api_key_id: t.Optional(Uuid) }),
  response: t.Object({ allowed: t.Boolean(), message: t.Optional(t.String()) }),
  handler: ({ ctx, body }) => checkBudget(ctx, { orgId: body.org_id, apiKeyId: body.api_key_id }),
});
