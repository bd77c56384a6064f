// Server time to render the dashboard's two biggest pages: the deployments page with 1,000 deployments
// and the audit page with 100,000 audit records (target under 50 ms each), through the dashboard
// gateway's handler with a signed-in session, on embedded PGlite or, with TEST_DATABASE_URL, PostgreSQL.
//
//   bun run bench dashboard-render [--renders 50]
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import { deployments, deploymentTransitions, pools, replicas } from "../db/schema/index.ts";
import { adminEmail, adminPassword, gatewayHandler, startTestApp } from "../tests/support/app.ts";
import { usingPostgres } from "../tests/support/database.ts";

const { values } = parseArgs({ options: { renders: { type: "string", default: "50" } } });
const renders = Number(values.renders);

const t = await startTestApp();
const { handle } = await gatewayHandler(t.app, "dashboard");
const first = await handle(new Request("http://localhost/login"));
const csrf = /llmp_csrf=([^;]+)/.exec(first.headers.get("set-cookie") ?? "")?.[1] ?? "";
const login = await handle(
  new Request("http://localhost/login", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: `llmp_csrf=${csrf}` },
    body: new URLSearchParams({ email: adminEmail, password: adminPassword, _csrf: csrf }).toString(),
  }),
);
const cookie = `${login.headers
  .getSetCookie()
  .map((c) => c.split(";")[0])
  .join("; ")}; llmp_csrf=${csrf}`;
const orgId =
  (
    (await t.app.db.execute(sql`select id from organizations where name = 'default'`)) as unknown as {
      rows?: { id: string }[];
    } & { id: string }[]
  ).rows?.[0]?.id ??
  (
    (await t.app.db.execute(sql`select id from organizations where name = 'default'`)) as unknown as {
      id: string;
    }[]
  )[0]?.id;
if (!orgId) throw new Error("no default organization");

// 1,000 deployments, each with a replica and two transitions, on one pool.
const seeded = performance.now();
const [pool] = await t.app.db
  .insert(pools)
  .values({ orgId, name: "bench", ownerId: orgId, provider: "local", state: "Active", nodeTokenHash: "x" })
  .returning();
const states = ["RUNNING", "RUNNING", "RUNNING", "STOPPED", "FAILED", "DEPLOYING"] as const;
for (let batch = 0; batch < 1000; batch += 250) {
  const rows = await t.app.db
    .insert(deployments)
    .values(
      Array.from({ length: 250 }, (_, i) => ({
        orgId,
        name: `bench-${String(batch + i).padStart(4, "0")}`,
        poolId: pool?.id as string,
        engine: "llama.cpp" as const,
        image: "llama.cpp",
        status: states[(batch + i) % states.length] as (typeof states)[number],
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
const seedSeconds = (performance.now() - seeded) / 1000;
// What autovacuum does on a server after a bulk load (PGlite has none): fresh planner statistics.
await t.app.db.execute(sql`analyze`);

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
  "/deployments",
  "/deployments?page=15",
  "/deployments?status=FAILED",
  "/deployments?name=bench-09",
  "/deployments/rows",
  "/audit",
  "/audit?action=auth.*",
  "/audit?outcome=failure",
  "/audit?actor=user7%40example.com",
]) {
  rows.push(await measure(path));
}
console.log(`database: ${usingPostgres ? "PostgreSQL (TEST_DATABASE_URL)" : "embedded PGlite"}`);
console.log(
  `seeded 1,000 deployments and 100,000 audit records in ${seedSeconds.toFixed(1)} s; ${renders} renders each`,
);
console.log("");
console.log("| page | p50 ms | p99 ms | HTML KB |");
console.log("|---|---:|---:|---:|");
for (const r of rows)
  console.log(`| \`${r.path}\` | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.kb.toFixed(0)} |`);
await t.close();
process.exit(0);
