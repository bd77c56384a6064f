// The `quota` policy: requests and tokens an organization may use per UTC day, counted from what the
// inference gateway reports (track_usage). Counters are one row per organization and day, bumped by
// one atomic upsert, so concurrent reporters never lose an increment. The same reports carry each
// request's cost: spend per key and deployment (services/spend) is bumped with them, and the budget
// alerts they cross are raised.
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { organizations, usageCounters } from "../../db/schema/index.ts";
import type { AppContext } from "../context.ts";
import { invalid } from "../errors.ts";
import { isUuid } from "../orchestration/ids.ts";
import { effectivePolicies } from "../policies/effective.ts";
import { raiseBudgetAlerts } from "../spend/alerts.ts";
import { recordSpend } from "../spend/spend.ts";

export interface UsageReport {
  orgId: string;
  deploymentId?: string | undefined;
  apiKeyId?: string | undefined;
  promptTokens: number;
  completionTokens: number;
  /** What the request cost at its deployment's prices (services/spend/prices.ts); absent: nothing. */
  cost?: number | undefined;
}

export interface QuotaCheck {
  allowed: boolean;
  /** Left today, before this request; absent when the quota sets no such limit. */
  remaining_requests?: number;
  remaining_tokens?: number;
  /** When the day's counters start again (next UTC midnight). */
  reset_at: string;
}

type Ctx = Pick<AppContext, "clock"> & { db: Executor };

export const utcDay = (at: Date) => at.toISOString().slice(0, 10);
const nextUtcMidnight = (at: Date) =>
  new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1)).toISOString();

/** Adds reports to today's counters: one upsert for the whole batch. Unknown organizations are skipped. */
export async function trackUsage(ctx: Ctx, reports: UsageReport[]): Promise<{ tracked: number }> {
  if (reports.length === 0) return { tracked: 0 };
  for (const [i, r] of reports.entries())
    if (!isUuid(r.orgId)) throw invalid(`records.${i}.org_id`, "is not a UUID");
  const day = utcDay(ctx.clock());
  const byOrg = new Map<string, { requests: number; prompt: number; completion: number }>();
  for (const r of reports) {
    const sum = byOrg.get(r.orgId) ?? { requests: 0, prompt: 0, completion: 0 };
    sum.requests += 1;
    sum.prompt += Math.max(0, Math.round(r.promptTokens));
    sum.completion += Math.max(0, Math.round(r.completionTokens));
    byOrg.set(r.orgId, sum);
  }
  const known = await ctx.db
    .select({ id: organizations.id })
    .from(organizations)
    .where(inArray(organizations.id, [...byOrg.keys()]));
  const rows = known.map(({ id }) => {
    const s = byOrg.get(id) as { requests: number; prompt: number; completion: number };
    return {
      orgId: id,
      day,
      requests: s.requests,
      promptTokens: s.prompt,
      completionTokens: s.completion,
      totalTokens: s.prompt + s.completion,
    };
  });
  if (rows.length === 0) return { tracked: 0 };
  const knownIds = new Set(known.map((k) => k.id));
  const counted = reports.filter((r) => knownIds.has(r.orgId));
  await recordSpend(
    ctx.db,
    day,
    counted.map((r) => ({ ...r, cost: Number.isFinite(r.cost) ? (r.cost as number) : 0 })),
  );
  await ctx.db
    .insert(usageCounters)
    .values(rows)
    .onConflictDoUpdate({
      target: [usageCounters.orgId, usageCounters.day],
      set: {
        requests: sql`${usageCounters.requests} + excluded.requests`,
        promptTokens: sql`${usageCounters.promptTokens} + excluded.prompt_tokens`,
        completionTokens: sql`${usageCounters.completionTokens} + excluded.completion_tokens`,
        totalTokens: sql`${usageCounters.totalTokens} + excluded.total_tokens`,
        updatedAt: sql`now()`,
      },
    });
  await raiseBudgetAlerts(ctx, counted);
  return { tracked: rows.reduce((n, r) => n + r.requests, 0) };
}

/** Today's use of an organization. */
export async function usageToday(ctx: Ctx, orgId: string): Promise<{ requests: number; tokens: number }> {
  const [row] = await ctx.db
    .select({ requests: usageCounters.requests, tokens: usageCounters.totalTokens })
    .from(usageCounters)
    .where(and(eq(usageCounters.orgId, orgId), eq(usageCounters.day, utcDay(ctx.clock()))))
    .limit(1);
  return { requests: Number(row?.requests ?? 0), tokens: Number(row?.tokens ?? 0) };
}

/**
 * May the organization make one more request of about `tokens` tokens today? Refused when it already
 * made requests_per_day requests, or when its tokens so far plus `tokens` would pass tokens_per_day.
 */
export async function checkQuota(
  ctx: Ctx,
  input: { orgId: string; deploymentId?: string | undefined; tokens?: number | undefined },
): Promise<QuotaCheck> {
  if (!isUuid(input.orgId)) throw invalid("org_id", "is not a UUID");
  if (input.deploymentId !== undefined && !isUuid(input.deploymentId))
    throw invalid("deployment_id", "is not a UUID");
  const now = ctx.clock();
  const reset_at = nextUtcMidnight(now);
  const quota = (await effectivePolicies(ctx.db, input.orgId, input.deploymentId)).quota;
  if (!quota || (quota.requests_per_day === undefined && quota.tokens_per_day === undefined)) {
    return { allowed: true, reset_at };
  }
  const used = await usageToday(ctx, input.orgId);
  const result: QuotaCheck = { allowed: true, reset_at };
  if (quota.requests_per_day !== undefined) {
    result.remaining_requests = Math.max(0, quota.requests_per_day - used.requests);
    if (used.requests >= quota.requests_per_day) result.allowed = false;
  }
  if (quota.tokens_per_day !== undefined) {
    result.remaining_tokens = Math.max(0, quota.tokens_per_day - used.tokens);
    const coming = Math.max(0, input.tokens ?? 0);
    if (used.tokens >= quota.tokens_per_day || used.tokens + coming > quota.tokens_per_day)
      result.allowed = false;
  }
  return result;
}
