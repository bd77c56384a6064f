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
} from "#db/schema/index.ts";

/** The fields of a batch's JSON rows and their SQL types. */
const fieldTypes = {
  id: "uuid",
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
  cached_tokens: "integer",
  latency_ms: "double precision",
  ttft_ms: "double precision",
  stream: "boolean",
  guardrails: "jsonb",
  retrieval: "jsonb",
  created_at: "timestamptz",
  cost: "double precision",
  served_by_deployment_id: "uuid",
  served_by: "text",
  cache: "text",
  cache_saved_tokens: "integer",
  served_by_endpoint: "text",
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

/** A log row as the batch statement receives it: created_at filled in (an ISO string), cost a number. */
export interface LogRow {
  org_id: string | null;
  deployment_id: string | null;
  api_key_id: string | null;
  status: number;
  prompt_tokens: number;
  completion_tokens: number;
  latency_ms: number;
  ttft_ms: number | null;
  cost: number;
  created_at: string;
}

/** The figures of a rollup row, as its columns are named. */
export interface RollupFigures {
  requests: number;
  errors_4xx: number;
  errors_5xx: number;
  input_tokens: number;
  output_tokens: number;
  cost: number;
  latency_buckets: number[];
  latency_max_ms: number;
  ttft_buckets: number[];
  ttft_max_ms: number;
}

/** One row of a rollup, added up from a batch's logs before they reach the database. */
interface Group extends RollupFigures {
  org_id: string;
  api_key_id: string | null;
  deployment_id: string | null;
  at: string;
}

/** The histogram bucket of a value, as PostgreSQL's width_bucket(value, bounds) numbers it. */
export function bucketOf(ms: number): number {
  let i = 0;
  while (i < latencyBoundsMs.length && ms >= (latencyBoundsMs[i] as number)) i++;
  return i;
}

const minuteMs = 60_000;
const hourMs = 3_600_000;

/**
 * A batch's rows added up per organization, deployment (and key) and minute or hour, one group per
 * rollup row the batch touches: the database then upserts a few rows per batch instead of grouping
 * every log row in WebAssembly (on PGlite that grouping was most of a batch's cost). Buckets are whole
 * UTC minutes and hours, as date_bin from bucketOrigin gives them.
 */
export function rollUpBatch(
  rows: LogRow[],
): Record<"minutes" | "hours" | "keyMinutes" | "keyHours", Group[]> {
  const tables = {
    minutes: new Map(),
    hours: new Map(),
    keyMinutes: new Map(),
    keyHours: new Map(),
  } as Record<"minutes" | "hours" | "keyMinutes" | "keyHours", Map<string, Group>>;
  const targets = [
    [tables.minutes, minuteMs, false],
    [tables.hours, hourMs, false],
    [tables.keyMinutes, minuteMs, true],
    [tables.keyHours, hourMs, true],
  ] as const;
  for (const row of rows) {
    if (row.org_id === null) continue;
    const time = Date.parse(row.created_at);
    const lb = bucketOf(row.latency_ms);
    const tb = row.ttft_ms === null ? -1 : bucketOf(row.ttft_ms);
    for (const [table, width, keyed] of targets) {
      if (keyed && row.api_key_id === null) continue;
      const at = time - (((time % width) + width) % width);
      const apiKeyId = keyed ? row.api_key_id : null;
      const id = `${row.org_id}\n${apiKeyId}\n${row.deployment_id}\n${at}`;
      let g = table.get(id);
      if (!g) {
        g = {
          org_id: row.org_id,
          api_key_id: apiKeyId,
          deployment_id: row.deployment_id,
          at: new Date(at).toISOString(),
          requests: 0,
          errors_4xx: 0,
          errors_5xx: 0,
          input_tokens: 0,
          output_tokens: 0,
          cost: 0,
          latency_buckets: Array(bucketCount).fill(0),
          latency_max_ms: row.latency_ms,
          ttft_buckets: Array(bucketCount).fill(0),
          ttft_max_ms: 0,
        };
        table.set(id, g);
      }
      g.requests++;
      if (row.status >= 400 && row.status <= 499) g.errors_4xx++;
      else if (row.status >= 500) g.errors_5xx++;
      g.input_tokens += row.prompt_tokens;
      g.output_tokens += row.completion_tokens;
      g.cost += row.cost;
      (g.latency_buckets[lb] as number)++;
      if (row.latency_ms > g.latency_max_ms) g.latency_max_ms = row.latency_ms;
      if (tb >= 0) {
        (g.ttft_buckets[tb] as number)++;
        if ((row.ttft_ms as number) > g.ttft_max_ms) g.ttft_max_ms = row.ttft_ms as number;
      }
    }
  }
  return {
    minutes: [...tables.minutes.values()],
    hours: [...tables.hours.values()],
    keyMinutes: [...tables.keyMinutes.values()],
    keyHours: [...tables.keyHours.values()],
  };
}

const groupType = sql.raw(`org_id uuid, api_key_id uuid, deployment_id uuid, at timestamptz, requests integer,
  errors_4xx integer, errors_5xx integer, input_tokens bigint, output_tokens bigint, cost double precision,
  latency_buckets integer[], latency_max_ms double precision, ttft_buckets integer[], ttft_max_ms double precision`);

/** One rollup's upsert of a batch's groups (a JSON array of Group). */
function upsertGroups(table: RollupTable, unit: "minute" | "hour", keyed: boolean, groups: Group[]): SQL {
  const key = keyed ? "org_id, api_key_id, deployment_id" : "org_id, deployment_id";
  const constraint = sql.raw(`${getTableName(table)}_key`);
  // Ordered by the key, so two batches that meet on some rows lock them in the same order (no deadlock).
  // Nothing is added for a batch written before (`logged` empty: see logAndRollUp).
  return sql`insert into ${table} as t (${sql.raw(`${key}, ${unit}, ${figureColumns}`)})
    select ${sql.raw(`${key}, at, ${figureColumns}`)}
    from json_to_recordset(${JSON.stringify(groups)}::json) as g(${groupType})
    where exists (select 1 from logged)
    order by ${sql.raw(key)}, at
    on conflict on constraint ${constraint} do update set ${rollupMerge}`;
}

/**
 * The statement for one chunk of rows (`chunk`: their JSON array, every field of fieldTypes): inserts
 * the logs and upserts the rollups' groups of the same rows (rollUpBatch), as one statement. Each log
 * has the id its gateway gave it, so a batch sent again (its first answer lost: a connection cut, a
 * time-out after the database had written it) adds no row twice, and its rollups are not added again.
 */
export function logAndRollUp(chunk: string, rows: LogRow[]): SQL {
  const g = rollUpBatch(rows);
  return sql`
  with logged as (
    insert into ${inferenceLogs} (${logColumnList})
    select ${logColumnList} from json_to_recordset(${chunk}::json) as j(${recordType})
    on conflict (id) do nothing
    returning 1
  ),
  minutes as (${upsertGroups(inferenceLogMinutes, "minute", false, g.minutes)}),
  hours as (${upsertGroups(inferenceLogHours, "hour", false, g.hours)}),
  key_minutes as (${upsertGroups(inferenceLogKeyMinutes, "minute", true, g.keyMinutes)})
  ${upsertGroups(inferenceLogKeyHours, "hour", true, g.keyHours)}`;
}

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
