// Server time to render the dashboard's biggest pages, through the dashboard gateway's handler with a
// signed-in session, on embedded PGlite or, with TEST_DATABASE_URL, PostgreSQL:
// - lists: the deployments page with 1,000 deployments and the audit page with 100,000 audit records
//   (target under 50 ms each);
// - overview: the overview of a month of one busy deployment, 1 request/s for 30 days (2.6 million
//   inference logs, rolled up as the writer does), for each range, and an API key's page (target under
//   200 ms each).
//
//   bun run bench dashboard-render [--renders 50] [--pages all|lists|overview] [--days 30]
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import { rowsOf } from "#db/migrate.ts";
import { apiKeys, deployments, deploymentTransitions, pools, replicas } from "#db/schema/index.ts";
import { at } from "#scripts/checked.ts";
import { rollUpWrittenLogs } from "#services/inference-logs/rollup-sql.ts";
import { gatewayHandler, startTestApp } from "#tests/support/app.ts";
import { signInToDashboard } from "#tests/support/dashboard.ts";
import { usingPostgres } from "#tests/support/database.ts";

const { values } = parseArgs({
  options: {
    renders: { type: "string", default: "50" },
    pages: { type: "string", default: "all" },
    days: { type: "string", default: "30" },
  },
});
const renders = Number(values.renders);
const lists = values.pages !== "overview";
const overview = values.pages !== "lists";

const t = await startTestApp();
const { handle } = await gatewayHandler(t.app, "dashboard");
const { cookie } = await signInToDashboard(handle);
const [defaultOrg] = rowsOf<{ id: string }>(
  await t.app.db.execute(sql`select id from organizations where name = 'default'`),
);
if (!defaultOrg) throw new Error("no default organization");
const orgId: string = defaultOrg.id;

// 1,000 deployments, each with a replica and two transitions, on one pool.
const seeded = performance.now();
if (lists) await seedLists();
const seedSeconds = (performance.now() - seeded) / 1000;
const overviewSeed = overview ? await seedOverview(orgId, Number(values.days)) : undefined;
// What autovacuum does on a server after a bulk load (PGlite has none): fresh planner statistics.
await t.app.db.execute(sql`analyze`);

async function seedLists() {
  const [pool] = await t.app.db
    .insert(pools)
    .values({ orgId, name: "bench", ownerId: orgId, provider: "local", state: "Active", nodeTokenHash: "x" })
    .returning();
  if (!pool) throw new Error("no pool inserted");
  const states = ["RUNNING", "RUNNING", "RUNNING", "STOPPED", "FAILED", "DEPLOYING"] as const;
  for (let batch = 0; batch < 1000; batch += 250) {
    const rows = await t.app.db
      .insert(deployments)
      .values(
        Array.from({ length: 250 }, (_, i) => ({
          orgId,
          name: `bench-${String(batch + i).padStart(4, "0")}`,
          poolId: pool.id,
          engine: "llama.cpp" as const,
          image: "llama.cpp",
          status: at(states, (batch + i) % states.length),
          desiredState: "running" as const,
          inferenceModel: "registry://tiny/v1",
        })),
      )
      .returning({ id: deployments.id });
    await t.app.db.insert(replicas).values(
      rows.map((r, i) => ({
        deploymentId: r.id,
        index: 0,
        state: "READY" as const,
        endpoint: `http://127.0.0.1:${40000 + i}/v1`,
      })),
    );
    await t.app.db.insert(deploymentTransitions).values(
      rows.flatMap((r) => [
        {
          deploymentId: r.id,
          fromState: null,
          toState: "DEPLOYING" as const,
          reason: "deployment accepted",
          at: new Date(),
        },
        {
          deploymentId: r.id,
          fromState: "DEPLOYING" as const,
          toState: "RUNNING" as const,
          reason: "the replica is ready",
          at: new Date(),
        },
      ]),
    );
  }
  // 100,000 audit records over the last 28 hours, four kinds of action, one in ten a failure.
  await t.app.db.execute(sql`
  insert into audit_logs (org_id, actor_label, action, target_type, target_id, outcome, details, created_at)
  select ${orgId}::uuid, 'user' || (i % 50) || '@example.com',
         (array['auth.login', 'api_key.create', 'deployment.create', 'policy.update'])[1 + i % 4],
         'deployment', md5(i::text), case when i % 10 = 0 then 'failure' else 'success' end,
         jsonb_build_object('n', i), now() - make_interval(secs => i)
  from generate_series(1, 100000) as i`);
}

/**
 * One deployment answering 1 request/s for `days` days, through three keys: each day's 86,400 logs
 * inserted in bulk, then added to the rollups by the statement an upgrade uses (the same sums and
 * histograms as the writer's). On PGlite, which holds its database in memory here, only the last
 * day's logs are kept; the rollups keep every day.
 */
async function seedOverview(org: string, days: number) {
  const started = performance.now();
  const [pool] = await t.app.db
    .insert(pools)
    .values({
      orgId: org,
      name: "busy",
      ownerId: org,
      provider: "local",
      state: "Active",
      nodeTokenHash: "y",
    })
    .returning();
  if (!pool) throw new Error("no pool inserted");
  const [busy] = await t.app.db
    .insert(deployments)
    .values({
      orgId: org,
      name: "busy-chat",
      poolId: pool.id,
      engine: "llama.cpp",
      image: "llama.cpp",
      status: "RUNNING",
      desiredState: "running",
    })
    .returning();
  const keys = await t.app.db
    .insert(apiKeys)
    .values(
      ["web", "mobile", "batch"].map((name) => ({ orgId: org, name, keyHash: name, prefix: `sk-${name}` })),
    )
    .returning({ id: apiKeys.id });
  const keyList = sql.raw(`array[${keys.map((k) => `'${k.id}'::uuid`).join(", ")}]`);
  const end = Math.floor(Date.now() / 1000);
  for (let day = days - 1; day >= 0; day--) {
    const to = new Date((end - day * 86_400) * 1000);
    const from = new Date(to.getTime() - 86_400_000);
    await t.app.db.execute(sql`
      insert into inference_logs (request_id, org_id, deployment_id, api_key_id, key_prefix, model, status,
        error_code, prompt_tokens, completion_tokens, total_tokens, latency_ms, ttft_ms, stream, created_at)
      select 'bench-' || ${day} || '-' || i, ${org}::uuid, ${busy?.id}::uuid, (${keyList})[1 + i % 3], 'sk-bench',
        'busy-chat', s.status, case when s.status >= 400 then 'e' || s.status end, s.prompt, s.completion,
        s.prompt + s.completion, s.latency, case when s.status < 400 then s.latency * (0.1 + (i % 7) / 10.0) end,
        i % 2 = 0, ${from.toISOString()}::timestamptz + make_interval(secs => i)
      from generate_series(0, 86399) as i,
        lateral (select case when i % 53 = 0 then 429 when i % 211 = 0 then 502 else 200 end as status,
          50 + (i * 7919) % 900 as prompt, (i::bigint * 104729) % 700 as completion,
          20 + ((i * 2654435761) % 4000000) / 1000.0 * (1 + (i % 11) / 3.0) as latency) as s`);
    await t.app.db.execute(rollUpWrittenLogs(from, to));
    if (!usingPostgres && day > 0)
      await t.app.db.execute(sql`delete from inference_logs where created_at < ${to.toISOString()}`);
  }
  const [count] = rowsOf<{ n: number }>(
    await t.app.db.execute(sql`select sum(requests)::float8 as n from inference_log_hours`),
  );
  return { seconds: (performance.now() - started) / 1000, requests: Number(count?.n), keyId: keys[0]?.id };
}

async function measure(path: string) {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < renders + 5; i++) {
    const started = performance.now();
    const res = await handle(new Request(`http://localhost${path}`, { headers: { cookie } }));
    const html = await res.text();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${html.slice(0, 200)}`);
    if (i >= 5) times.push(performance.now() - started);
    bytes = html.length;
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))] ?? 0;
  return { path, p50: at(50), p99: at(99), kb: bytes / 1024 };
}

const rows = [];
for (const path of [
  ...(overviewSeed
    ? [
        "/?range=hour",
        "/?range=day",
        "/?range=week",
        "/?range=month",
        `/api-keys/${overviewSeed.keyId}?range=day`,
        `/api-keys/${overviewSeed.keyId}?range=month`,
      ]
    : []),
].concat(
  lists
    ? [
        "/deployments",
        "/deployments?page=15",
        "/deployments?status=FAILED",
        "/deployments?name=bench-09",
        "/deployments/rows",
        "/audit",
        "/audit?action=auth.*",
        "/audit?outcome=failure",
        "/audit?actor=user7%40example.com",
      ]
    : [],
)) {
  rows.push(await measure(path));
}
console.log(`database: ${usingPostgres ? "PostgreSQL (TEST_DATABASE_URL)" : "embedded PGlite"}`);
if (lists) console.log(`seeded 1,000 deployments and 100,000 audit records in ${seedSeconds.toFixed(1)} s`);
if (overviewSeed)
  console.log(
    `seeded ${overviewSeed.requests.toLocaleString("en-US")} requests of one deployment (${values.days} days at 1/s) in ${overviewSeed.seconds.toFixed(1)} s`,
  );
console.log(`${renders} renders each`);
console.log("");
console.log("| page | p50 ms | p99 ms | HTML KB |");
console.log("|---|---:|---:|---:|");
for (const r of rows)
  console.log(`| \`${r.path}\` | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.kb.toFixed(0)} |`);
await t.close();
process.exit(0);
