// The per-minute and per-hour rollups hold exactly what the inference logs add up to: written by the
// same statement as the logs (services/inference-logs/rollup-sql.ts), checked against the raw rows on
// PGlite and, with TEST_DATABASE_URL, PostgreSQL; and the overview's figures are those of the logs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { rowsOf } from "#db/migrate.ts";
import { latencyBoundsMs } from "#db/schema/index.ts";
import type { RequestContext } from "#services/context.ts";
import { writeInferenceLogs } from "#services/inference-logs/logs.ts";
import { rollUpWrittenLogs } from "#services/inference-logs/rollup-sql.ts";
import { quantileMs } from "#services/usage/histogram.ts";
import { usageOverview } from "#services/usage/overview.ts";
import { defaultOrgId, insertDeployment } from "../management/support.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { generateLogs } from "./support.ts";

let t: TestApp;
let orgId: string;
let ctx: RequestContext;
let entries: ReturnType<typeof generateLogs>;
const now = Date.now();
const keys = [crypto.randomUUID(), crypto.randomUUID(), null];

beforeAll(async () => {
  t = await startTestApp();
  orgId = await defaultOrgId(t.app.db);
  const a = (await insertDeployment(t.app.db, orgId, { name: "rollup-a" })).id;
  const b = (await insertDeployment(t.app.db, orgId, { name: "rollup-b" })).id;
  ctx = {
    ...t.app,
    requestId: "test",
    ip: undefined,
    userAgent: undefined,
    actor: {
      userId: crypto.randomUUID(),
      email: "a@example.com",
      orgId,
      role: "admin",
      permissions: new Set(),
    },
  };
  entries = generateLogs({
    orgId,
    deploymentIds: [a, b, null],
    apiKeyIds: keys,
    count: 6000,
    spanMs: 3 * 86_400_000,
    now,
  });
  // Batches of several sizes, one past the writer's 2,000-row statement, meeting on the same minutes.
  await writeInferenceLogs(t.app, entries.slice(0, 2500));
  await writeInferenceLogs(t.app, entries.slice(2500, 2501));
  await writeInferenceLogs(t.app, entries.slice(2501));
  // Logs without an organization (a bad key) are kept, but belong to no one's overview.
  await writeInferenceLogs(
    t.app,
    generateLogs({
      orgId: null,
      deploymentIds: [null],
      apiKeyIds: [null],
      count: 50,
      spanMs: 3_600_000,
      now,
      seed: 2,
    }),
  );
}, 120_000);
afterAll(() => t.close());

interface Group {
  k: string;
  requests: number;
  errors_4xx: number;
  errors_5xx: number;
  input_tokens: number;
  output_tokens: number;
  latency_max_ms: number;
  ttft_max_ms: number;
}

const bucketOf = (ms: number) => latencyBoundsMs.filter((b) => ms >= b).length;

/** `keyed`: the per-key rollup, against the logs that have a key; else the per-deployment one. */
async function matchesRawLogs(unit: "minute" | "hour", keyed: boolean): Promise<void> {
  const trunc = sql.raw(`date_bin('1 ${unit}', created_at, timestamptz '2000-01-01 00:00:00+00')`);
  const keyOf = sql.raw(
    `coalesce(deployment_id::text, '-') || '/' || ${keyed ? "api_key_id::text" : "'*'"} || '/' || extract(epoch from at)::bigint`,
  );
  const table = sql.raw(keyed ? `inference_log_key_${unit}s` : `inference_log_${unit}s`);
  const logs = sql.raw(keyed ? "and api_key_id is not null" : "");
  const raw = rowsOf<Group>(
    await t.app.db.execute(sql`
          select ${keyOf} as k, count(*)::int as requests,
            (count(*) filter (where status between 400 and 499))::int as errors_4xx,
            (count(*) filter (where status >= 500))::int as errors_5xx,
            sum(prompt_tokens)::float8 as input_tokens, sum(completion_tokens)::float8 as output_tokens,
            max(latency_ms) as latency_max_ms, coalesce(max(ttft_ms), 0) as ttft_max_ms
          from (select *, ${trunc} as at from inference_logs where org_id = ${orgId} ${logs}) l
          group by k order by k`),
  );
  const rolled = rowsOf<Group & { cost: number; latency_buckets: number[]; ttft_buckets: number[] }>(
    await t.app.db.execute(sql`
          select ${keyOf} as k, requests, errors_4xx, errors_5xx, input_tokens::float8 as input_tokens,
            output_tokens::float8 as output_tokens, latency_max_ms, ttft_max_ms, cost, latency_buckets, ttft_buckets
          from (select *, ${sql.raw(unit)} as at from ${table} where org_id = ${orgId}) r
          order by k`),
  );
  expect(rolled.map(({ cost, latency_buckets, ttft_buckets, ...g }) => g)).toEqual(raw);
  const counted = keyed ? entries.filter((e) => e.api_key_id) : entries;
  expect(rolled.reduce((n, r) => n + r.requests, 0)).toBe(counted.length);
  // Histograms and cost, from the entries written.
  const width = unit === "minute" ? 60_000 : 3_600_000;
  const expected = new Map<string, { cost: number; latency: number[]; ttft: number[] }>();
  for (const e of counted) {
    const k = `${e.deployment_id ?? "-"}/${keyed ? e.api_key_id : "*"}/${Math.floor(Date.parse(e.created_at as string) / width) * (width / 1000)}`;
    const g = expected.get(k) ?? { cost: 0, latency: Array(24).fill(0), ttft: Array(24).fill(0) };
    g.cost += e.cost ?? 0;
    g.latency[bucketOf(e.latency_ms as number)]++;
    if (e.ttft_ms != null) g.ttft[bucketOf(e.ttft_ms)]++;
    expected.set(k, g);
  }
  expect(rolled.length).toBe(expected.size);
  for (const r of rolled) {
    const e = expected.get(r.k);
    expect({ k: r.k, latency: r.latency_buckets.map(Number), ttft: r.ttft_buckets.map(Number) }).toEqual({
      k: r.k,
      latency: e?.latency as number[],
      ttft: e?.ttft as number[],
    });
    expect(Number(r.cost)).toBeCloseTo(e?.cost as number, 9);
  }
}

for (const unit of ["minute", "hour"] as const) {
  describe(`inference_log_${unit}s and inference_log_key_${unit}s`, () => {
    test("every row equals the raw logs of its organization, deployment and time", async () => {
      await matchesRawLogs(unit, false);
    });
    test("every row of the key rollup equals the raw logs of its key, deployment and time", async () => {
      await matchesRawLogs(unit, true);
    });
  });
}

test("the overview's figures for the last week are the raw logs' counts, per deployment and in all", async () => {
  const overview = await usageOverview(ctx, { range: "week" });
  const raw = rowsOf<{
    deployment_id: string | null;
    requests: number;
    errors: number;
    input: number;
    output: number;
  }>(
    await t.app.db.execute(sql`
      select deployment_id, count(*)::int as requests, (count(*) filter (where status >= 400))::int as errors,
        sum(prompt_tokens)::float8 as input, sum(completion_tokens)::float8 as output
      from inference_logs where org_id = ${orgId} and created_at >= ${overview.from.toISOString()}
      group by deployment_id`),
  );
  const shown = overview.deployments.map((s) => ({
    deployment_id: s.deploymentId,
    requests: s.sum.requests,
    errors: s.sum.errors4xx + s.sum.errors5xx,
    input: s.sum.inputTokens,
    output: s.sum.outputTokens,
  }));
  const byId = (a: { deployment_id: string | null }, b: { deployment_id: string | null }) =>
    String(a.deployment_id).localeCompare(String(b.deployment_id));
  expect(shown.sort(byId)).toEqual(raw.sort(byId));
  expect(overview.total.sum.requests).toBe(entries.length);
  expect(overview.deployments.map((s) => s.name).sort()).toEqual(["(no deployment)", "rollup-a", "rollup-b"]);
  expect(overview.times.length).toBe(168);
});

test("the hour and day read the minutes: a bucket holds the requests of its minutes", async () => {
  const day = await usageOverview(ctx, { range: "day" });
  const since = day.from.toISOString();
  const [row] = rowsOf<{ n: number }>(
    await t.app.db.execute(
      sql`select count(*)::int as n from inference_logs where org_id = ${orgId} and created_at >= ${since}`,
    ),
  );
  expect(day.total.sum.requests).toBe(row?.n as number);
  expect(day.total.points.reduce((n, p) => n + p.requests, 0)).toBe(row?.n as number);
  expect(day.times.length).toBe(288);
  // One key's requests only.
  const keyed = await usageOverview(ctx, { range: "day", apiKeyId: keys[0] as string });
  const [k] = rowsOf<{ n: number }>(
    await t.app.db.execute(
      sql`select count(*)::int as n from inference_logs where org_id = ${orgId} and api_key_id = ${keys[0]} and created_at >= ${since}`,
    ),
  );
  expect(keyed.total.sum.requests).toBe(k?.n as number);
  expect(keyed.total.sum.requests).toBeGreaterThan(0);
});

test("logs written before the rollups existed are added to them in one statement", async () => {
  const clear = async () => {
    for (const table of [
      "inference_log_minutes",
      "inference_log_hours",
      "inference_log_key_minutes",
      "inference_log_key_hours",
    ])
      await t.app.db.execute(sql.raw(`delete from ${table}`));
  };
  await clear();
  const result = await usageOverview(ctx, { range: "week" });
  expect(result.total.sum.requests).toBe(0);
  await t.app.db.execute(rollUpWrittenLogs(new Date(now - 4 * 86_400_000), new Date(now + 60_000)));
  for (const unit of ["minute", "hour"] as const)
    for (const keyed of [false, true]) await matchesRawLogs(unit, keyed);
  // Put back what the writer had rolled up for the tests after this one.
  await clear();
  await t.app.db.execute(sql`delete from inference_logs`);
  await writeInferenceLogs(t.app, entries);
});

test("p50 and p95 from the merged histograms fall in the exact percentile's bucket", async () => {
  const overview = await usageOverview(ctx, { range: "week" });
  const [exact] = rowsOf<{ p50: number; p95: number; t50: number; t95: number }>(
    await t.app.db.execute(sql`
      select percentile_disc(0.5) within group (order by latency_ms) as p50,
        percentile_disc(0.95) within group (order by latency_ms) as p95,
        percentile_disc(0.5) within group (order by ttft_ms) as t50,
        percentile_disc(0.95) within group (order by ttft_ms) as t95
      from inference_logs where org_id = ${orgId}`),
  );
  if (!exact) throw new Error("no logs");
  const near = (estimate: number | null, value: number) => {
    const i = bucketOf(value);
    const lower = i === 0 ? 0 : (latencyBoundsMs[i - 1] as number);
    const upper = latencyBoundsMs[i] ?? Number.POSITIVE_INFINITY;
    expect({
      estimate,
      lower,
      upper,
      inside: (estimate as number) >= lower && (estimate as number) <= upper,
    }).toEqual({
      estimate,
      lower,
      upper,
      inside: true,
    });
  };
  near(quantileMs(overview.total.sum.latency, 0.5), Number(exact.p50));
  near(quantileMs(overview.total.sum.latency, 0.95), Number(exact.p95));
  near(quantileMs(overview.total.sum.ttft, 0.5), Number(exact.t50));
  near(quantileMs(overview.total.sum.ttft, 0.95), Number(exact.t95));
});
