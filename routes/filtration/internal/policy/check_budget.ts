import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { checkBudget } from "#services/spend/budgets.ts";
import { Uuid } from "../../_schemas/internal.ts";

const SpentInPeriods = t.Object({ day: t.Number(), month: t.Number() });

export const POST = route({
  access: "internal",
  summary:
    "May one more call of this API key (or of the organization, without a key) start (`budget` policies)?",
  description:
    "Refused once the key's or the organization's spend today or this month (UTC) reached the budget's limit; " +
    "`message` says which budget, its limit and the spend.",
  body: t.Object({ org_id: Uuid, api_key_id: t.Optional(Uuid) }),
  response: t.Object({
    allowed: t.Boolean(),
    message: t.Optional(t.String()),
    spent: t.Optional(
      t.Object(
        { organization: SpentInPeriods, api_key: SpentInPeriods },
        { description: "Spend so far of each scope that has a budget (0 for one without)" },
      ),
    ),
  }),
  handler: ({ ctx, body }) => checkBudget(ctx, { orgId: body.org_id, apiKeyId: body.api_key_id }),
});
