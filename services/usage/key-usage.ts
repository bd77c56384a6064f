// An API key's page: its usage over a range (the overview's figures narrowed to its requests), what it
// spent today and this month, and its budget when a `budget` policy names it.

import type { BudgetPolicy } from "#core/policies.ts";
import type { ApiKeyView } from "../api-keys/keys.ts";
import { actorOf, type RequestContext } from "../context.ts";
import { applicableBudgets } from "../spend/budgets.ts";
import {
  apiKeyOfOrg,
  defaultUsageRange,
  keySpend,
  type UsageOverview,
  type UsageRange,
  usageOverview,
} from "./overview.ts";

export interface KeyUsage {
  key: ApiKeyView;
  overview: UsageOverview;
  spent: { today: number; month: number };
  budget: BudgetPolicy | undefined;
}

/**
 * The key's usage over `range`; none asked for: the shortest range that holds the key's traffic, as
 * the overview chooses its own (defaultUsageRange), so a new key's first requests fill the hour.
 */
export async function apiKeyUsage(
  ctx: RequestContext,
  keyId: string,
  asked: UsageRange | undefined,
): Promise<KeyUsage> {
  const key = await apiKeyOfOrg(ctx, keyId);
  const range = asked ?? (await defaultUsageRange(ctx, { apiKeyId: key.id }));
  const [overview, spent, budget] = await Promise.all([
    usageOverview(ctx, { range, apiKeyId: key.id }),
    keySpend(ctx, key.id),
    applicableBudgets(ctx.db, actorOf(ctx).orgId, key.id).then((b) => b.api_key),
  ]);
  return { key, overview, spent, budget };
}
