import { bigint, doublePrecision, integer, pgTable, timestamp, unique, uuid } from "drizzle-orm/pg-core";

/**
 * The upper bounds (ms) of the latency and time-to-first-token histograms of the rollups: bucket i
 * counts values in [bound[i-1], bound[i]), bucket 0 those under the first bound, the last bucket those at
 * or over the last. Roughly ×1.5 apart, so an interpolated p50/p95 is off by well under a bucket's width.
 * Changing the list changes the meaning of stored arrays: add a migration that clears the rollups.
 */
export const latencyBoundsMs = [
  10, 20, 30, 50, 75, 100, 150, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 7500, 10000, 15000, 20000,
  30000, 60000, 120000,
] as const;

/**
 * The figures of a rollup row: what the inference logs of one organization and deployment (and, in the
 * key tables, one API key) added up to in one minute or hour. A null deployment: refused before one was
 * resolved. Rows are written with the logs, in the same statement (services/inference-logs).
 */
const figures = () => ({
  orgId: uuid("org_id").notNull(),
  deploymentId: uuid("deployment_id"),
  requests: integer("requests").notNull().default(0),
  /** Answered with a status from 400 to 499 (refusals: bad input, keys, limits, guardrails). */
  errors4xx: integer("errors_4xx").notNull().default(0),
  /** Answered with a status of 500 or more (the replicas, timeouts, the platform). */
  errors5xx: integer("errors_5xx").notNull().default(0),
  inputTokens: bigint("input_tokens", { mode: "number" }).notNull().default(0),
  outputTokens: bigint("output_tokens", { mode: "number" }).notNull().default(0),
  /** In the currency of the deployments' prices. */
  cost: doublePrecision("cost").notNull().default(0),
  /** Counts per bucket of latencyBoundsMs (length bounds + 1). */
  latencyBuckets: integer("latency_buckets").array().notNull(),
  latencyMaxMs: doublePrecision("latency_max_ms").notNull().default(0),
  /** Counts per bucket of latencyBoundsMs, of the requests that recorded a time to first token. */
  ttftBuckets: integer("ttft_buckets").array().notNull(),
  ttftMaxMs: doublePrecision("ttft_max_ms").notNull().default(0),
});
const minute = () => timestamp("minute", { withTimezone: true, mode: "date" }).notNull();
const hour = () => timestamp("hour", { withTimezone: true, mode: "date" }).notNull();
const apiKeyId = () => uuid("api_key_id").notNull();

// Nulls are a value of the keys here (PostgreSQL 15+): every request without a deployment adds up.

/** Per deployment and minute: the overview's hour and day (at most 1,440 rows a deployment). */
export const inferenceLogMinutes = pgTable(
  "inference_log_minutes",
  { ...figures(), minute: minute() },
  (t) => [unique("inference_log_minutes_key").on(t.orgId, t.minute, t.deploymentId).nullsNotDistinct()],
);

/** Per deployment and hour: the overview's week and month (at most 720 rows a deployment). */
export const inferenceLogHours = pgTable("inference_log_hours", { ...figures(), hour: hour() }, (t) => [
  unique("inference_log_hours_key").on(t.orgId, t.hour, t.deploymentId).nullsNotDistinct(),
]);

/**
 * The same per API key, for a key's page: apart, so that the overview reads one row per deployment
 * and bucket however many keys call it. Requests without a key (the playground) are not in them.
 */
export const inferenceLogKeyMinutes = pgTable(
  "inference_log_key_minutes",
  { apiKeyId: apiKeyId(), ...figures(), minute: minute() },
  (t) => [
    unique("inference_log_key_minutes_key")
      .on(t.orgId, t.apiKeyId, t.minute, t.deploymentId)
      .nullsNotDistinct(),
  ],
);

export const inferenceLogKeyHours = pgTable(
  "inference_log_key_hours",
  { apiKeyId: apiKeyId(), ...figures(), hour: hour() },
  (t) => [
    unique("inference_log_key_hours_key").on(t.orgId, t.apiKeyId, t.hour, t.deploymentId).nullsNotDistinct(),
  ],
);
