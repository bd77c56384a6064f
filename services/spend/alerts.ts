// Budget alerts in the audit log: `budget.alert` when a budget's spend reaches 80 % and 100 % of its
// limit, once per budget, period and threshold. Checked after each batch of usage is counted (off
// the hot path); budget_alerts' primary key makes "once" hold however many gateways report at once.
import { auditLogs, budgetAlerts } from "#db/schema/index.ts";
import { type BudgetLine, budgetLines, keysWithBudgets, refusalOf } from "./budgets.ts";
import { utcDayOf, utcMonthOf } from "./periods.ts";

type Ctx = Parameters<typeof budgetLines>[0];

export const alertThresholds = [80, 100] as const;

/** Raises the alerts the spend of these callers just crossed. */
export async function raiseBudgetAlerts(
  ctx: Ctx,
  callers: { orgId: string; apiKeyId?: string | undefined }[],
): Promise<number> {
  const orgIds = [...new Set(callers.map((c) => c.orgId))];
  const keyIds = [...new Set(callers.flatMap((c) => (c.apiKeyId ? [c.apiKeyId] : [])))];
  const budgeted = await keysWithBudgets(ctx.db, orgIds, keyIds);
  if (budgeted.length === 0) return 0;
  const now = ctx.clock();
  const lines: { orgId: string; apiKeyId: string | undefined; line: BudgetLine }[] = [];
  for (const b of budgeted) {
    const apiKeyId = b.apiKeyId ?? undefined;
    for (const line of await budgetLines(ctx, b.orgId, apiKeyId)) {
      // The organization's lines come with its own row; a key's row adds only the key's.
      if ((line.scope === "api_key") === (apiKeyId !== undefined))
        lines.push({ orgId: b.orgId, apiKeyId, line });
    }
  }
  let raised = 0;
  for (const { orgId, apiKeyId, line } of lines) {
    const percent = line.limit > 0 ? (line.spent / line.limit) * 100 : 0;
    for (const threshold of alertThresholds) {
      if (percent < threshold) continue;
      const budget = apiKeyId ? `api_key:${apiKeyId}` : "organization";
      const period = line.period === "day" ? `day:${utcDayOf(now)}` : `month:${utcMonthOf(now)}`;
      // The alert's row and its audit record commit together, so an alert is never remembered unsaid.
      const added = await ctx.db.transaction(async (tx) => {
        const inserted = await tx
          .insert(budgetAlerts)
          .values({ orgId, budget, period, thresholdPercent: threshold })
          .onConflictDoNothing()
          .returning({ orgId: budgetAlerts.orgId });
        if (inserted.length === 0) return false;
        await tx.insert(auditLogs).values({
          orgId,
          actorId: null,
          actorLabel: null,
          action: "budget.alert",
          targetType: apiKeyId ? "api_key" : "organization",
          targetId: apiKeyId ?? orgId,
          outcome: "success",
          details: {
            budget: line.scope,
            ...(apiKeyId ? { api_key_id: apiKeyId } : {}),
            period: line.period,
            period_start: line.period === "day" ? utcDayOf(now) : `${utcMonthOf(now)}-01`,
            threshold_percent: threshold,
            limit: line.limit,
            spent: line.spent,
            message:
              threshold >= 100
                ? refusalOf(line)
                : `the ${line.scope === "api_key" ? "API key" : "organization"} has spent ${threshold} % of its ${line.period === "day" ? "daily" : "monthly"} budget`,
          },
        });
        return true;
      });
      if (added) raised += 1;
    }
  }
  return raised;
}
