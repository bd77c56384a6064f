import { BudgetAnswer, BudgetCheck } from "#contracts/internal/policy.ts";
import { route } from "#server/http/route.ts";
import { checkBudget } from "#services/spend/budgets.ts";

export const POST = route({
  access: "internal",
  summary:
    "May one more call of this API key (or of the organization, without a key) start (`budget` policies)?",
  description:
    "Refused once the key's or the organization's spend today or this month (UTC) reached the budget's limit; " +
    "`message` says which budget, its limit and the spend.",
  body: BudgetCheck,
  response: BudgetAnswer,
  handler: ({ ctx, body }) => checkBudget(ctx, { orgId: body.org_id, apiKeyId: body.api_key_id }),
});
