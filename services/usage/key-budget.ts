// HOOK for the spend work: the `budget` policy of one API key (CONTRACTS: `{max_spend_per_day?,
// max_spend_per_month?}`, with `api_key_id` beside `deployment_id`). This branch has no `api_key_id`
// column on policies yet, so no key has a budget and the key's page shows its usage only. Once the column
// is merged, read the row here:
//   select config from policies where org_id = $org and api_key_id = $key and policy_type = 'budget'
import type { RequestContext } from "../context.ts";

export interface KeyBudget {
  max_spend_per_day?: number | undefined;
  max_spend_per_month?: number | undefined;
}

export async function budgetOfApiKey(
  _ctx: RequestContext,
  _apiKeyId: string,
): Promise<KeyBudget | undefined> {
  return undefined;
}
