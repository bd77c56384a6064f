// An API key's page: its usage over a range (the overview's figures narrowed to its requests), what it
// spent today and this month, and its budget when a `budget` policy names it (key-budget.ts).
import type { ApiKeyView } from "../api-keys/keys.ts";
import type { RequestContext } from "../context.ts";
import { budgetOfApiKey, type KeyBudget } from "./key-budget.ts";
import { apiKeyOfOrg, keySpend, type UsageOverview, type UsageRange, usageOverview } from "./overview.ts";

export interface KeyUsage {
  key: ApiKeyView;
  overview: UsageOverview;
  spent: { today: number; month: number };
  budget: KeyBudget | undefined;
}

export async function apiKeyUsage(ctx: RequestContext, keyId: string, range: UsageRange): Promise<KeyUsage> {
  const key = await apiKeyOfOrg(ctx, keyId);
  const [overview, spent, budget] = await Promise.all([
    usageOverview(ctx, { range, apiKeyId: key.id }),
    keySpend(ctx, key.id),
    budgetOfApiKey(ctx, key.id),
  ]);
  return { key, overview, spent, budget };
}
