// What the dashboard's overview and an API key's page draw: an organization's inference traffic over
// the last hour, day, week or month, per deployment and in total, summed in SQL from the rollups
// (db/schema/inference-log-rollups.ts) into a fixed number of time buckets. The hour and day read the
// per-minute rows (at most 1,440 a series), the week and month the per-hour ones (at most 720); a key's
// page reads the per-key rollups.
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { notFound } from "#core/errors.ts";
import { uuidOr404 } from "#core/ids.ts";
import { rowsOf } from "#db/migrate.ts";
import {
  apiKeys,
  deployments,
  inferenceLogHours,
  inferenceLogKeyHours,
  inferenceLogKeyMinutes,
  inferenceLogMinutes,
  inferenceLogs,
  latencyBoundsMs,
} from "#db/schema/index.ts";
import { type ApiKeyView, apiKeyView } from "../api-keys/keys.ts";
import { actorOf, type RequestContext } from "../context.ts";
import { bucketOrigin, type RollupFigures } from "../inference-logs/rollup-sql.ts";
import { addHistogram, emptyHistogram, type Histogram } from "./histogram.ts";

export const usageRanges = {
  hour: { label: "Last hour", bucketSeconds: 60, buckets: 60, table: "minute" },
  day: { label: "Last day", bucketSeconds: 300, buckets: 288, table: "minute" },
  week: { label: "Last week", bucketSeconds: 3600, buckets: 168, table: "hour" },
  month: { label: "Last 30 days", bucketSeconds: 21_600, buckets: 120, table: "hour" },
} as const;
export type UsageRange = keyof typeof usageRanges;
export const usageRangeNames = Object.keys(usageRanges) as UsageRange[];
export const isUsageRange = (value: unknown): value is UsageRange =>
  typeof value === "string" && Object.hasOwn(usageRanges, value);

/** One time bucket's figures. */
export interface UsagePoint {
  requests: number;
  errors4xx: number;
  errors5xx: number;
  inputTokens: number;
  outputTokens: number;
  cost: number;
  latency: Histogram;
  ttft: Histogram;
}

export interface UsageSeries {
  /** Null: requests refused before a deployment was known (an unknown model name). */
  deploymentId: string | null;
  name: string;
  /** One per bucket of the range, oldest first; buckets without traffic are zeros. */
  points: UsagePoint[];
  /** The whole range. */
  sum: UsagePoint;
}

export interface UsageOverview {
  range: UsageRange;
  /** Start of the first bucket and end of the last (the current bucket, still filling). */
  from: Date;
  to: Date;
  bucketSeconds: number;
  /** Start of each bucket. */
  times: Date[];
  total: UsageSeries;
  /** Busiest first. */
  deployments: UsageSeries[];
}

export const emptyPoint = (): UsagePoint => ({
  requests: 0,
  errors4xx: 0,
  errors5xx: 0,
  inputTokens: 0,
  outputTokens: 0,
  cost: 0,
  latency: emptyHistogram(),
  ttft: emptyHistogram(),
});

export function addPoint(into: UsagePoint, from: UsagePoint): void {
  into.requests += from.requests;
  into.errors4xx += from.errors4xx;
  into.errors5xx += from.errors5xx;
  into.inputTokens += from.inputTokens;
  into.outputTokens += from.outputTokens;
  into.cost += from.cost;
  addHistogram(into.latency, from.latency);
  addHistogram(into.ttft, from.ttft);
}

interface BucketRow extends RollupFigures {
  deployment_id: string | null;
  at_s: number;
}

const summed = (column: string) =>
  sql.raw(
    `array[${Array.from(
      { length: latencyBoundsMs.length + 1 },
      (_, i) => `coalesce(sum(${column}[${i + 1}]), 0)`,
    ).join(", ")}]::float8[]`,
  );
const latencySums = summed("latency_buckets");
const ttftSums = summed("ttft_buckets");

/** The range's figures for the actor's organization; `apiKeyId` narrows them to one key's requests. */
export async function usageOverview(
  ctx: RequestContext,
  input: { range: UsageRange; apiKeyId?: string | undefined },
): Promise<UsageOverview> {
  const orgId = actorOf(ctx).orgId;
  const spec = usageRanges[input.range];
  const width = spec.bucketSeconds * 1000;
  const now = ctx.clock().getTime();
  const to = new Date(Math.floor(now / width) * width + width);
  const from = new Date(to.getTime() - spec.buckets * width);
  const keyId = input.apiKeyId;
  const at = sql.raw(spec.table);
  const table = keyId
    ? spec.table === "minute"
      ? inferenceLogKeyMinutes
      : inferenceLogKeyHours
    : spec.table === "minute"
      ? inferenceLogMinutes
      : inferenceLogHours;
  const bucket = sql`date_bin(${sql.raw(`'${spec.bucketSeconds} seconds'`)}, ${at}, ${bucketOrigin})`;
  const rows = rowsOf<BucketRow>(
    await ctx.db.execute(sql`
      select deployment_id, extract(epoch from ${bucket})::float8 as at_s,
        sum(requests)::float8 as requests, sum(errors_4xx)::float8 as errors_4xx,
        sum(errors_5xx)::float8 as errors_5xx, sum(input_tokens)::float8 as input_tokens,
        sum(output_tokens)::float8 as output_tokens, sum(cost)::float8 as cost,
        ${latencySums} as latency_buckets, max(latency_max_ms)::float8 as latency_max_ms,
        ${ttftSums} as ttft_buckets, max(ttft_max_ms)::float8 as ttft_max_ms
      from ${table}
      where org_id = ${orgId} ${keyId ? sql`and api_key_id = ${keyId}` : sql``}
        and ${at} >= ${from.toISOString()} and ${at} < ${to.toISOString()}
      group by 1, 2`),
  );

  const times = Array.from({ length: spec.buckets }, (_, i) => new Date(from.getTime() + i * width));
  const byDeployment = new Map<string | null, UsagePoint[]>();
  for (const row of rows) {
    const index = Math.round((Number(row.at_s) * 1000 - from.getTime()) / width);
    if (index < 0 || index >= spec.buckets) continue;
    let points = byDeployment.get(row.deployment_id);
    if (!points) {
      points = times.map(emptyPoint);
      byDeployment.set(row.deployment_id, points);
    }
    points[index] = pointOf(row);
  }
  const names = await deploymentNames(
    ctx,
    orgId,
    [...byDeployment.keys()].filter((id) => id !== null),
  );
  const series = [...byDeployment].map(([deploymentId, points]) =>
    seriesOf(
      deploymentId,
      deploymentId ? (names.get(deploymentId) ?? deploymentId) : "(no deployment)",
      points,
    ),
  );
  series.sort((a, b) => b.sum.requests - a.sum.requests || a.name.localeCompare(b.name));
  const totalPoints = times.map(emptyPoint);
  for (const s of series) {
    for (const [i, p] of s.points.entries()) addPoint(totalPoints[i] as UsagePoint, p);
  }
  return {
    range: input.range,
    from,
    to,
    bucketSeconds: spec.bucketSeconds,
    times,
    total: seriesOf(null, "All deployments", totalPoints),
    deployments: series,
  };
}

const pointOf = (row: BucketRow): UsagePoint => ({
  requests: Number(row.requests),
  errors4xx: Number(row.errors_4xx),
  errors5xx: Number(row.errors_5xx),
  inputTokens: Number(row.input_tokens),
  outputTokens: Number(row.output_tokens),
  cost: Number(row.cost),
  latency: { counts: row.latency_buckets.map(Number), maxMs: Number(row.latency_max_ms) },
  ttft: { counts: row.ttft_buckets.map(Number), maxMs: Number(row.ttft_max_ms) },
});

function seriesOf(deploymentId: string | null, name: string, points: UsagePoint[]): UsageSeries {
  const sum = emptyPoint();
  for (const p of points) addPoint(sum, p);
  return { deploymentId, name, points, sum };
}

/**
 * Names of the deployments, deleted ones included (their traffic still counts): "(deleted)" after a
 * deleted one's last name. A deployment whose row is gone (its pool was deleted) is named after the
 * last request it served. Two series never share a label: a repeat gets the start of its id.
 */
async function deploymentNames(
  ctx: RequestContext,
  orgId: string,
  ids: string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await ctx.db
    .select({ id: deployments.id, name: deployments.name, deletedAt: deployments.deletedAt })
    .from(deployments)
    .where(and(eq(deployments.orgId, orgId), inArray(deployments.id, ids)));
  const names = new Map(
    rows.map((r) => [r.id, r.deletedAt === null ? r.name : `${r.name} (deleted)`] as const),
  );
  const gone = ids.filter((id) => !names.has(id));
  if (gone.length > 0) {
    const last = await ctx.db
      .selectDistinctOn([inferenceLogs.deploymentId], {
        id: inferenceLogs.deploymentId,
        name: sql<string>`coalesce(${inferenceLogs.servedBy}, ${inferenceLogs.model})`,
      })
      .from(inferenceLogs)
      .where(and(eq(inferenceLogs.orgId, orgId), inArray(inferenceLogs.deploymentId, gone)))
      .orderBy(inferenceLogs.deploymentId, desc(inferenceLogs.seq));
    for (const r of last) if (r.id) names.set(r.id, `${r.name} (deleted)`);
    for (const id of gone) if (!names.has(id)) names.set(id, `${id.slice(0, 8)} (deleted)`);
  }
  return distinctLabels(names);
}

/** Labels made unique: a label that repeats gets "· <first 8 characters of the id>" on each use. */
export function distinctLabels(names: Map<string, string>): Map<string, string> {
  const uses = new Map<string, number>();
  for (const label of names.values()) uses.set(label, (uses.get(label) ?? 0) + 1);
  return new Map(
    [...names].map(([id, label]) => [
      id,
      (uses.get(label) ?? 0) > 1 ? `${label} · ${id.slice(0, 8)}` : label,
    ]),
  );
}

/**
 * The range that shows the organization's traffic best when none was asked for: the shortest one that
 * holds its oldest request of the last 30 days, so a new installation's first minutes fill the hour
 * instead of the last pixels of a day. No traffic at all: the day.
 */
export async function defaultUsageRange(
  ctx: RequestContext,
  input: { apiKeyId?: string | undefined } = {},
): Promise<UsageRange> {
  const orgId = actorOf(ctx).orgId;
  const now = ctx.clock().getTime();
  const oldest = async (table: "minute" | "hour", sinceMs: number): Promise<number | null> => {
    const source = input.apiKeyId
      ? table === "minute"
        ? inferenceLogKeyMinutes
        : inferenceLogKeyHours
      : table === "minute"
        ? inferenceLogMinutes
        : inferenceLogHours;
    const at = sql.raw(table);
    const [row] = rowsOf<{ at_s: number | null }>(
      await ctx.db.execute(sql`
        select extract(epoch from min(${at}))::float8 as at_s from ${source}
        where org_id = ${orgId} ${input.apiKeyId ? sql`and api_key_id = ${input.apiKeyId}` : sql``}
          and ${at} >= ${new Date(sinceMs).toISOString()}`),
    );
    return row?.at_s == null ? null : Number(row.at_s) * 1000;
  };
  const hourMs = 3_600_000;
  const recent = await oldest("minute", now - 24 * hourMs);
  if (recent !== null) return recent >= now - hourMs + 60_000 ? "hour" : "day";
  const older = await oldest("hour", now - 30 * 24 * hourMs);
  if (older === null) return "day";
  return older >= now - 7 * 24 * hourMs + hourMs ? "week" : "month";
}

/** An API key of the actor's organization, or 404 (another organization's key is not found either). */
export async function apiKeyOfOrg(ctx: RequestContext, keyId: string): Promise<ApiKeyView> {
  const id = uuidOr404(keyId, "API key");
  const [row] = await ctx.db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.id, id), eq(apiKeys.orgId, actorOf(ctx).orgId)))
    .limit(1);
  if (!row) throw notFound("API key");
  return apiKeyView(row);
}

/** What a key spent since the start of today and of this month (UTC), for its budget. */
export async function keySpend(
  ctx: RequestContext,
  apiKeyId: string,
): Promise<{ today: number; month: number }> {
  const orgId = actorOf(ctx).orgId;
  const now = ctx.clock();
  const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const spent = async (table: typeof inferenceLogKeyMinutes | typeof inferenceLogKeyHours, since: Date) => {
    const at = sql.raw(table === inferenceLogKeyMinutes ? "minute" : "hour");
    const [row] = rowsOf<{ cost: number | null }>(
      await ctx.db.execute(
        sql`select sum(cost)::float8 as cost from ${table}
          where org_id = ${orgId} and api_key_id = ${apiKeyId} and ${at} >= ${since.toISOString()}`,
      ),
    );
    return Number(row?.cost ?? 0);
  };
  const [today, thisMonth] = await Promise.all([
    spent(inferenceLogKeyMinutes, day),
    spent(inferenceLogKeyHours, month),
  ]);
  return { today, month: thisMonth };
}
