// Spend: what each organization's calls cost, per API key, deployment and UTC day. The usage reports
// of the inference gateway bump spend_daily in the same statement as the quota's usage_counters
// (services/usage/quota.ts), atomic upserts, so gateways reporting at once never lose a cost.
// GET /management/spend reads it grouped by deployment, API key or day.
import { and, asc, eq, gte, inArray, lte, type SQL, sql } from "drizzle-orm";
import { Problems } from "#core/validation.ts";
import type { Executor } from "#db/client.ts";
import { apiKeys, deployments, organizations, spendDaily } from "#db/schema/index.ts";
import { actorOf, type RequestContext } from "../context.ts";
import { utcDayOf } from "./periods.ts";

export interface SpendReport {
  orgId: string;
  deploymentId?: string | undefined;
  apiKeyId?: string | undefined;
  promptTokens: number;
  completionTokens: number;
  cost: number;
}

/**
 * The upsert that adds a batch of requests to the day's spend, one row per organization, key and
 * deployment (added up here), for trackUsage's statement (services/usage/quota.ts). Organizations that
 * do not exist are skipped; rows are locked in key order, so batches meeting on rows never deadlock.
 */
export function upsertSpend(day: string, reports: SpendReport[]): SQL {
  const rows = new Map<string, SpendRow>();
  for (const r of reports) {
    const id = `${r.orgId}\n${r.apiKeyId ?? ""}\n${r.deploymentId ?? ""}`;
    let row = rows.get(id);
    if (!row) {
      row = {
        org_id: r.orgId,
        api_key_id: r.apiKeyId ?? null,
        deployment_id: r.deploymentId ?? null,
        day,
        requests: 0,
        prompt_tokens: 0,
        completion_tokens: 0,
        cost: 0,
      };
      rows.set(id, row);
    }
    row.requests += 1;
    row.prompt_tokens += Math.max(0, Math.round(r.promptTokens));
    row.completion_tokens += Math.max(0, Math.round(r.completionTokens));
    row.cost += Math.max(0, r.cost);
  }
  return sql`insert into ${spendDaily} as s (org_id, api_key_id, deployment_id, day, requests, prompt_tokens,
      completion_tokens, cost)
    select g.org_id, g.api_key_id, g.deployment_id, g.day, g.requests, g.prompt_tokens, g.completion_tokens, g.cost
    from json_to_recordset(${JSON.stringify([...rows.values()])}::json) as g(org_id uuid, api_key_id uuid,
      deployment_id uuid, day date, requests bigint, prompt_tokens bigint, completion_tokens bigint,
      cost double precision)
    where exists (select 1 from ${organizations} o where o.id = g.org_id)
    order by g.org_id, g.api_key_id, g.deployment_id
    on conflict on constraint spend_daily_key do update set requests = s.requests + excluded.requests,
      prompt_tokens = s.prompt_tokens + excluded.prompt_tokens,
      completion_tokens = s.completion_tokens + excluded.completion_tokens,
      cost = s.cost + excluded.cost, updated_at = now()`;
}

interface SpendRow {
  org_id: string;
  api_key_id: string | null;
  deployment_id: string | null;
  day: string;
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost: number;
}

export const spendGroupings = ["deployment", "api_key", "day"] as const;
export type SpendGrouping = (typeof spendGroupings)[number];

export interface SpendQuery {
  /** First UTC day, YYYY-MM-DD; default 29 days before `to`. */
  from?: string | undefined;
  /** Last UTC day, included; default today. */
  to?: string | undefined;
  group_by?: SpendGrouping | undefined;
}

interface Totals {
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost: number;
}

export interface SpendItem extends Totals {
  /** group_by=day */
  day?: string;
  /** group_by=deployment: null for calls whose deployment was not known. */
  deployment_id?: string | null;
  deployment_name?: string | null;
  /** group_by=api_key: null for the dashboard's playground (no key). */
  api_key_id?: string | null;
  api_key_name?: string | null;
  key_prefix?: string | null;
}

export interface SpendView {
  from: string;
  to: string;
  group_by: SpendGrouping;
  total: Totals;
  items: SpendItem[];
}

const dayPattern = /^\d{4}-\d{2}-\d{2}$/;
/** A real calendar day (2026-02-31 is not one, and PostgreSQL would refuse it). */
const isDay = (s: string) => {
  const at = Date.parse(`${s}T00:00:00Z`);
  return dayPattern.test(s) && !Number.isNaN(at) && utcDayOf(new Date(at)) === s;
};
const maxDays = 366;
const dayMs = 86_400_000;
const addDays = (day: string, n: number) => utcDayOf(new Date(Date.parse(`${day}T00:00:00Z`) + n * dayMs));
const roundCost = (n: number) => Math.round(n * 1e9) / 1e9;

export async function spendOf(ctx: RequestContext, query: SpendQuery): Promise<SpendView> {
  const orgId = actorOf(ctx).orgId;
  const problems = new Problems();
  if (query.to !== undefined && !isDay(query.to)) problems.add("to", "must be a UTC day, YYYY-MM-DD");
  if (query.from !== undefined && !isDay(query.from)) problems.add("from", "must be a UTC day, YYYY-MM-DD");
  problems.throwIfAny();
  const to = query.to ?? utcDayOf(ctx.clock());
  const from = query.from ?? addDays(to, -29);
  if (from > to) problems.add("from", "must not be after `to`");
  else if (Date.parse(to) - Date.parse(from) >= maxDays * dayMs)
    problems.add("from", `the range is at most ${maxDays} days`);
  problems.throwIfAny();
  const groupBy = query.group_by ?? "deployment";
  const sums = {
    requests: sql<number>`sum(${spendDaily.requests})`.mapWith(Number),
    prompt_tokens: sql<number>`sum(${spendDaily.promptTokens})`.mapWith(Number),
    completion_tokens: sql<number>`sum(${spendDaily.completionTokens})`.mapWith(Number),
    cost: sql<number>`sum(${spendDaily.cost})`.mapWith(Number),
  };
  const where = and(eq(spendDaily.orgId, orgId), gte(spendDaily.day, from), lte(spendDaily.day, to));
  const column =
    groupBy === "day"
      ? spendDaily.day
      : groupBy === "api_key"
        ? spendDaily.apiKeyId
        : spendDaily.deploymentId;
  const rows = await ctx.db
    .select({ group: column, ...sums })
    .from(spendDaily)
    .where(where)
    .groupBy(column)
    .orderBy(groupBy === "day" ? asc(column) : sql`sum(${spendDaily.cost}) desc`);
  const items: SpendItem[] = rows.map((r) => {
    const totals = {
      requests: r.requests,
      prompt_tokens: r.prompt_tokens,
      completion_tokens: r.completion_tokens,
      cost: roundCost(r.cost),
    };
    if (groupBy === "day") return { day: String(r.group), ...totals };
    if (groupBy === "api_key") return { api_key_id: r.group, ...totals };
    return { deployment_id: r.group, ...totals };
  });
  await nameItems(ctx.db, orgId, groupBy, items);
  const total = items.reduce<Totals>(
    (t, i) => ({
      requests: t.requests + i.requests,
      prompt_tokens: t.prompt_tokens + i.prompt_tokens,
      completion_tokens: t.completion_tokens + i.completion_tokens,
      cost: roundCost(t.cost + i.cost),
    }),
    { requests: 0, prompt_tokens: 0, completion_tokens: 0, cost: 0 },
  );
  return { from, to, group_by: groupBy, total, items };
}

/** Names the keys and deployments of a report (deleted ones keep theirs; revoked keys stay listed). */
async function nameItems(db: Executor, orgId: string, groupBy: SpendGrouping, items: SpendItem[]) {
  if (groupBy === "api_key") {
    const ids = items.flatMap((i) => (i.api_key_id ? [i.api_key_id] : []));
    const keys = ids.length
      ? await db
          .select({ id: apiKeys.id, name: apiKeys.name, prefix: apiKeys.prefix })
          .from(apiKeys)
          .where(and(eq(apiKeys.orgId, orgId), inArray(apiKeys.id, ids)))
      : [];
    const byId = new Map(keys.map((k) => [k.id, k]));
    for (const i of items) {
      const key = i.api_key_id ? byId.get(i.api_key_id) : undefined;
      i.api_key_name = key?.name ?? null;
      i.key_prefix = key?.prefix ?? null;
    }
  }
  if (groupBy === "deployment") {
    const ids = items.flatMap((i) => (i.deployment_id ? [i.deployment_id] : []));
    const rows = ids.length
      ? await db
          .select({ id: deployments.id, name: deployments.name })
          .from(deployments)
          .where(and(eq(deployments.orgId, orgId), inArray(deployments.id, ids)))
      : [];
    const byId = new Map(rows.map((d) => [d.id, d.name]));
    for (const i of items) i.deployment_name = (i.deployment_id && byId.get(i.deployment_id)) || null;
  }
}
