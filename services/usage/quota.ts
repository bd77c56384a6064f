// The `quota` policy: requests and tokens an organization may use per UTC day, counted from what the
// inference gateway reports (track_usage). Counters are one row per organization and day, bumped by
// one atomic upsert, so concurrent reporters never lose an increment. The same reports carry each
// request's cost: spend per key and deployment (services/spend) is bumped with them, and the budget
// alerts they cross are raised.
import { and, eq, sql } from "drizzle-orm";
import { invalid } from "#core/errors.ts";
import { isUuid } from "#core/ids.ts";
import type { Executor } from "#db/client.ts";
import { executePrepared } from "#db/prepared.ts";
import { organizations, usageCounters } from "#db/schema/index.ts";
import type { AppContext } from "../context.ts";
import { effectivePolicies } from "../policies/effective.ts";
import { raiseBudgetAlerts } from "../spend/alerts.ts";
import { upsertSpend } from "../spend/spend.ts";

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
  /** Used today so far (the counters' figures; reservations of calls in flight are the gateway's). */
  used_requests: number;
  used_tokens: number;
  /** When the day's counters start again (next UTC midnight). */
  reset_at: string;
}

type Ctx = Pick<AppContext, "clock"> & { db: Executor };

export const utcDay = (at: Date) => at.toISOString().slice(0, 10);
const nextUtcMidnight = (at: Date) =>
  new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1)).toISOString();

/** Adds reports to today's counters: one upsert for the whole batch. Unknown organizations are skipped. */
export async function trackUsage(ctx: Ctx, given: UsageReport[]): Promise<{ tracked: number }> {
  if (given.length === 0) return { tracked: 0 };
  for (const [i, r] of given.entries())
    if (!isUuid(r.orgId)) throw invalid(`records.${i}.org_id`, "is not a UUID");
  // Ids as the database writes them, so one organization, key or deployment is one row of a batch.
  const reports = given.map((r) => ({
    ...r,
    orgId: r.orgId.toLowerCase(),
    apiKeyId: r.apiKeyId?.toLowerCase(),
    deploymentId: r.deploymentId?.toLowerCase(),
  }));
  const day = utcDay(ctx.clock());
  const byOrg = new Map<string, { requests: number; prompt: number; completion: number }>();
  for (const r of reports) {
    const sum = byOrg.get(r.orgId) ?? { requests: 0, prompt: 0, completion: 0 };
    sum.requests += 1;
    sum.prompt += Math.max(0, Math.round(r.promptTokens));
    sum.completion += Math.max(0, Math.round(r.completionTokens));
    byOrg.set(r.orgId, sum);
  }
  const counters = [...byOrg].map(([orgId, s]) => ({
    org_id: orgId,
    day,
    requests: s.requests,
    prompt_tokens: s.prompt,
    completion_tokens: s.completion,
    total_tokens: s.prompt + s.completion,
  }));
  // One statement (prepared once on PGlite): the spend rows and the counters, for the organizations
  // that exist; it returns those, so their reports are the ones counted and checked against budgets.
  const known = await executePrepared(
    ctx.db,
    sql`with spend as (${upsertSpend(
      day,
      reports.map((r) => ({ ...r, cost: Number.isFinite(r.cost) ? (r.cost as number) : 0 })),
    )})
    insert into ${usageCounters} as u (org_id, day, requests, prompt_tokens, completion_tokens, total_tokens)
    select c.org_id, c.day, c.requests, c.prompt_tokens, c.completion_tokens, c.total_tokens
    from json_to_recordset(${JSON.stringify(counters)}::json) as c(org_id uuid, day date, requests bigint,
      prompt_tokens bigint, completion_tokens bigint, total_tokens bigint)
    where exists (select 1 from ${organizations} o where o.id = c.org_id)
    order by c.org_id
    on conflict (org_id, day) do update set requests = u.requests + excluded.requests,
      prompt_tokens = u.prompt_tokens + excluded.prompt_tokens,
      completion_tokens = u.completion_tokens + excluded.completion_tokens,
      total_tokens = u.total_tokens + excluded.total_tokens, updated_at = now()
    returning u.org_id`,
  );
  if (known.length === 0) return { tracked: 0 };
  const knownIds = new Set(known.map((k) => String(k.org_id)));
  const counted = reports.filter((r) => knownIds.has(r.orgId));
  await raiseBudgetAlerts(ctx, counted);
  return { tracked: counted.length };
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
    return { allowed: true, reset_at, used_requests: 0, used_tokens: 0 };
  }
  const used = await usageToday(ctx, input.orgId);
  const result: QuotaCheck = {
    allowed: true,
    reset_at,
    used_requests: used.requests,
    used_tokens: used.tokens,
  };
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
