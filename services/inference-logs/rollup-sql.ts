// The one statement that writes a batch of inference logs and adds it to the rollups
// (db/schema/inference-log-rollups.ts). The batch arrives as one JSON parameter; a CTE reads it once,
// inserts the logs, and upserts one row per organization, deployment (and key) and minute or hour into
// each of the four rollups, adding counts and histogram buckets to what the row held. A single
// statement is atomic, so no reader ever sees logs without their rollups or the reverse.
import { getTableName, type SQL, sql } from "drizzle-orm";
import {
  inferenceLogHours,
  inferenceLogKeyHours,
  inferenceLogKeyMinutes,
  inferenceLogMinutes,
  inferenceLogs,
  latencyBoundsMs,
} from "../../db/schema/index.ts";

/** The fields of a batch's JSON rows and their SQL types. */
const fieldTypes = {
  request_id: "text",
  org_id: "uuid",
  deployment_id: "uuid",
  api_key_id: "uuid",
  key_prefix: "text",
  model: "text",
  status: "integer",
  error_code: "text",
  prompt_tokens: "integer",
  completion_tokens: "integer",
  total_tokens: "integer",
  latency_ms: "double precision",
  ttft_ms: "double precision",
  stream: "boolean",
  guardrails: "jsonb",
  retrieval: "jsonb",
  created_at: "timestamptz",
  cost: "double precision",
  served_by_deployment_id: "uuid",
  served_by: "text",
} as const;

/** The fields that are columns of inference_logs: all of them. */
const logColumns = Object.keys(fieldTypes);

/** The origin of every time bucket: whole minutes, hours and days of UTC whatever the session's zone. */
export const bucketOrigin = sql.raw("timestamptz '2000-01-01 00:00:00+00'");

const bounds = sql.raw(`array[${latencyBoundsMs.join(", ")}]::double precision[]`);
const bucketCount = latencyBoundsMs.length + 1;
const each = (f: (i: number) => string) => Array.from({ length: bucketCount }, (_, i) => f(i)).join(", ");

const rollupSums = sql.raw(`count(*)::int,
  (count(*) filter (where status between 400 and 499))::int,
  (count(*) filter (where status >= 500))::int,
  coalesce(sum(prompt_tokens), 0)::bigint,
  coalesce(sum(completion_tokens), 0)::bigint,
  coalesce(sum(cost), 0)::double precision,
  array[${each((i) => `count(*) filter (where lb = ${i})`)}]::int[],
  max(latency_ms),
  array[${each((i) => `count(*) filter (where tb = ${i})`)}]::int[],
  coalesce(max(ttft_ms), 0)`);

const merged = (name: string) => `array[${each((i) => `t.${name}[${i + 1}] + excluded.${name}[${i + 1}]`)}]`;

const rollupMerge = sql.raw(`requests = t.requests + excluded.requests,
  errors_4xx = t.errors_4xx + excluded.errors_4xx,
  errors_5xx = t.errors_5xx + excluded.errors_5xx,
  input_tokens = t.input_tokens + excluded.input_tokens,
  output_tokens = t.output_tokens + excluded.output_tokens,
  cost = t.cost + excluded.cost,
  latency_buckets = ${merged("latency_buckets")},
  latency_max_ms = greatest(t.latency_max_ms, excluded.latency_max_ms),
  ttft_buckets = ${merged("ttft_buckets")},
  ttft_max_ms = greatest(t.ttft_max_ms, excluded.ttft_max_ms)`);

const figureColumns =
  "requests, errors_4xx, errors_5xx, input_tokens, output_tokens, cost, latency_buckets, latency_max_ms, ttft_buckets, ttft_max_ms";

type RollupTable =
  | typeof inferenceLogMinutes
  | typeof inferenceLogHours
  | typeof inferenceLogKeyMinutes
  | typeof inferenceLogKeyHours;

/** One rollup's upsert from `r`: per deployment, or (`keyed`) per key and deployment. */
function upsert(table: RollupTable, unit: "minute" | "hour", keyed: boolean): SQL {
  const key = keyed ? "org_id, api_key_id, deployment_id" : "org_id, deployment_id";
  const constraint = sql.raw(`${getTableName(table)}_key`);
  // Ordered by the key, so two batches that meet on some rows lock them in the same order (no deadlock).
  return sql`insert into ${table} as t (${sql.raw(`${key}, ${unit}, ${figureColumns}`)})
    select ${sql.raw(key)}, date_bin(${sql.raw(`'1 ${unit}'`)}, created_at, ${bucketOrigin}) as at, ${rollupSums}
    from r where org_id is not null ${sql.raw(keyed ? "and api_key_id is not null" : "")}
    group by ${sql.raw(key)}, at
    order by ${sql.raw(key)}, at
    on conflict on constraint ${constraint} do update set ${rollupMerge}`;
}

/** Every rollup's upsert, as CTEs after `r` (the last one is the statement's own). */
const rollups = sql`minutes as (${upsert(inferenceLogMinutes, "minute", false)}),
  hours as (${upsert(inferenceLogHours, "hour", false)}),
  key_minutes as (${upsert(inferenceLogKeyMinutes, "minute", true)})
  ${upsert(inferenceLogKeyHours, "hour", true)}`;

const recordType = sql.raw(
  Object.entries(fieldTypes)
    .map(([name, type]) => `${name} ${type}`)
    .join(", "),
);
const logColumnList = sql.raw(logColumns.join(", "));

/** Each row's histogram bucket (0 to bounds), for the rollups' counts. */
const bucketIndexes = sql`width_bucket(latency_ms, ${bounds}) as lb,
  case when ttft_ms is null then null else width_bucket(ttft_ms, ${bounds}) end as tb`;

/** The statement for one chunk of rows (a JSON array of objects with the fields above). */
export const logAndRollUp = (chunk: string): SQL => sql`
  with r as materialized (
    select ${sql.raw(logColumns.filter((c) => c !== "created_at" && c !== "cost").join(", "))},
      coalesce(created_at, now()) as created_at, coalesce(cost, 0) as cost, ${bucketIndexes}
    from json_to_recordset(${chunk}::json) as j(${recordType})
  ),
  logged as (insert into ${inferenceLogs} (${logColumnList}) select ${logColumnList} from r),
  ${rollups}`;

/**
 * Adds logs already in inference_logs, made in [from, to), to the rollups: for logs written before the
 * rollups existed (an upgrade) or loaded in bulk (the benchmark). It adds to what the rollups hold, so
 * run it once per stretch of time that they do not cover yet.
 */
export const rollUpWrittenLogs = (from: Date, to: Date): SQL => sql`
  with r as materialized (
    select org_id, deployment_id, api_key_id, status, prompt_tokens, completion_tokens, latency_ms, ttft_ms,
      created_at, cost, ${bucketIndexes}
    from ${inferenceLogs} where created_at >= ${from.toISOString()} and created_at < ${to.toISOString()}
  ),
  ${rollups}`;
