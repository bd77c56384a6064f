// Spend and budgets end to end through the inference gateway, against the OpenAI stub (12 prompt and
// 5 completion tokens a call): prices set on a deployment make each log's cost tokens × price, spend
// per deployment, key and day adds those costs up, and budgets of a key and of the organization
// refuse the call after the one that crossed them (429 insufficient_quota naming the budget), with
// one audit alert at 80 % and one at 100 %. Usage reaches the counters in batches and the gateway
// reads a budget's standing at most once a second, so each call is followed by a flush and a second.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { auditLogs, deployments, spendDaily } from "#db/schema/index.ts";
import type { POST as createKeyRoute } from "#routes/filtration/management/api-keys/index.ts";
import type {
  DELETE as deletePolicyRoute,
  GET as policyRoute,
  POST as setPolicyRoute,
} from "#routes/filtration/management/config/[policy_type].ts";
import type { GET as recentLogsRoute } from "#routes/filtration/management/deployments/recent-logs.ts";
import type { GET as spendRoute } from "#routes/filtration/management/spend.ts";
import { buildHttpGateway } from "#routes/gateways.ts";
import type { POST as deployRoute } from "#routes/orchestration/deployment/deploy.ts";
import type { POST as priceRoute } from "#routes/orchestration/deployment/price.ts";
import type { GET as statusRoute } from "#routes/orchestration/deployment/status/[deployment_id].ts";
import { httpStatusOf } from "#server/error-table.ts";
import { httpFiltration } from "#server/filtration-http-port.ts";
import { listen } from "#server/http/listen.ts";
import type { Listener } from "#server/start/platform.ts";
import { createInferenceRuntime, type InferenceRuntime } from "#services/inference/runtime.ts";
import { firstDayOfMonth, utcDayOf } from "#services/spend/periods.ts";
import { trackUsage } from "#services/usage/quota.ts";
import { chat, type GatewayTest, loggedRequest, startGatewayTest } from "../inference/support.ts";
import { createPool } from "../orchestration/support.ts";
import { call, type ErrorBody } from "../support/app.ts";

// 12 prompt tokens at 10,000 a million and 5 completion tokens at 20,000 a million.
const prices = { input_price_per_million: 10_000, output_price_per_million: 20_000 };
const perCall = 0.22;

async function newKey(g: GatewayTest): Promise<{ id: string; key: string }> {
  const res = await call<typeof createKeyRoute>(g.o.filtration, "POST", "/management/api-keys", {
    token: g.o.token,
    body: { name: `k-${crypto.randomUUID().slice(0, 6)}` },
  });
  expect(res.status).toBe(201);
  return { id: res.body.id, key: res.body.key };
}

/** Sets a budget: the policy answered, or the error named by `R` (`setBudget<ErrorBody>`). */
const setBudget = <R = typeof setPolicyRoute>(g: GatewayTest, body: Record<string, unknown>) =>
  call<R>(g.o.filtration, "POST", "/management/config/budget", { token: g.o.token, body });

/** Sets a deployment's prices: the deployment answered, or the error named by `R` (`priced<ErrorBody>`). */
const priced = <R = typeof priceRoute>(g: GatewayTest, body: Record<string, unknown>) =>
  call<R>(g.o.orchestration, "POST", "/deployment/price", { token: g.o.token, body });

/** One call, its usage counted and the gateway's standings old enough to be read again. */
async function callAndSettle(
  g: Pick<GatewayTest, "url" | "model">,
  gateway: Pick<GatewayTest, "runtime" | "clock">,
  key: string,
): Promise<{ status: number; body: { error?: { code: string; message: string } } }> {
  const response = await chat({ url: g.url, model: g.model, key });
  const body = await response.json();
  await gateway.runtime.usage.flush();
  gateway.clock.advance(1100);
  return { status: response.status, body };
}

function expectRefused(answer: Awaited<ReturnType<typeof callAndSettle>>, ...words: string[]) {
  expect(answer.status).toBe(429);
  expect(answer.body.error?.code).toBe("insufficient_quota");
  for (const word of words) expect(answer.body.error?.message).toContain(word);
}

const alertsOf = (g: GatewayTest, targetId: string) =>
  g.o.t.app.db
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.action, "budget.alert"), eq(auditLogs.targetId, targetId)));

describe("prices, the cost of each request, and spend", () => {
  let g: GatewayTest;
  beforeAll(async () => {
    g = await startGatewayTest();
  }, 60_000);
  afterAll(async () => {
    await g.close();
  });

  test("POST /deployment/deploy keeps the prices it is given; bad prices are 400 naming the field", async () => {
    const pool = await createPool(g.o, { provider: "external" });
    const body = {
      model_name: `priced-${crypto.randomUUID().slice(0, 6)}`,
      pool_id: pool.pool_id,
      image: "none",
      engine: "openai-compatible",
      configuration: { endpoints: [g.stub.baseUrl] },
    };
    const bad = await call<ErrorBody>(g.o.orchestration, "POST", "/deployment/deploy", {
      token: g.o.token,
      body: { ...body, input_price_per_million: -1 },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.error)).toContain("input_price_per_million");
    const made = await call<typeof deployRoute>(g.o.orchestration, "POST", "/deployment/deploy", {
      token: g.o.token,
      body: { ...body, ...prices },
    });
    expect(made.status).toBe(201);
    const status = await call<typeof statusRoute>(
      g.o.orchestration,
      "GET",
      `/deployment/status/${made.body.deployment_id}`,
      {
        token: g.o.token,
      },
    );
    expect(status.body.input_price_per_million).toBe(10_000);
    expect(status.body.output_price_per_million).toBe(20_000);
  });

  test("POST /deployment/price changes prices (null clears one); 400 for bad ones, 404 for an unknown deployment", async () => {
    expect(
      (await priced<ErrorBody>(g, { deployment_id: g.deploymentId, input_price_per_million: "x" })).status,
    ).toBe(400);
    const none = await priced<ErrorBody>(g, { deployment_id: g.deploymentId });
    expect(none.status).toBe(400);
    expect(none.body.error.code).toBe("validation_error");
    const unknown = await priced<ErrorBody>(g, {
      deployment_id: crypto.randomUUID(),
      input_price_per_million: 1,
    });
    expect(unknown.status).toBe(404);
    const cleared = await priced(g, {
      deployment_id: g.deploymentId,
      input_price_per_million: 3,
      output_price_per_million: null,
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body.input_price_per_million).toBe(3);
    expect(cleared.body.output_price_per_million).toBeNull();
    const set = await priced(g, { deployment_id: g.deploymentId, ...prices });
    expect(set.body).toMatchObject(prices);
  });

  test("each request's cost in its inference log is its tokens × the deployment's prices", async () => {
    await priced(g, { deployment_id: g.deploymentId, ...prices });
    g.clock.advance(1100);
    const response = await chat(g);
    expect(response.status).toBe(200);
    const requestId = response.headers.get("x-request-id") as string;
    const row = await loggedRequest(g, requestId);
    expect(row?.promptTokens).toBe(12);
    expect(row?.completionTokens).toBe(5);
    expect(row?.cost).toBeCloseTo((12 * 10_000 + 5 * 20_000) / 1_000_000, 9);
    const logs = await call<typeof recentLogsRoute>(
      g.o.filtration,
      "GET",
      "/management/deployments/recent-logs",
      {
        token: g.o.token,
      },
    );
    const listed = logs.body.items.find((i) => i.request_id === requestId);
    expect(listed?.cost).toBeCloseTo(perCall, 9);
  });

  test("without token prices, a request costs its replica's share of estimated_cost_per_hour for its duration", async () => {
    await priced(g, {
      deployment_id: g.deploymentId,
      input_price_per_million: null,
      output_price_per_million: null,
    });
    // 3,600 an hour for one replica: one unit a second.
    await g.o.t.app.db
      .update(deployments)
      .set({ estimatedCostPerHour: 3600 })
      .where(eq(deployments.id, g.deploymentId));
    g.clock.advance(1100);
    const response = await chat(g);
    expect(response.status).toBe(200);
    const row = await loggedRequest(g, response.headers.get("x-request-id") as string);
    expect(row?.cost).toBeGreaterThan(0);
    expect(row?.cost).toBeCloseTo((row?.latencyMs ?? 0) / 1000, 8);
    await g.o.t.app.db
      .update(deployments)
      .set({ estimatedCostPerHour: null })
      .where(eq(deployments.id, g.deploymentId));
    await priced(g, { deployment_id: g.deploymentId, ...prices });
  });

  test("GET /management/spend sums the costs per deployment, per API key and per day", async () => {
    await priced(g, { deployment_id: g.deploymentId, ...prices });
    g.clock.advance(1100);
    const a = await newKey(g);
    const b = await newKey(g);
    const before = await call<typeof spendRoute>(
      g.o.filtration,
      "GET",
      "/management/spend?group_by=deployment",
      {
        token: g.o.token,
      },
    );
    const deploymentBefore = before.body.items.find((i) => i.deployment_id === g.deploymentId)?.cost ?? 0;
    for (const key of [a.key, a.key, b.key]) expect((await chat(g, {}, key)).status).toBe(200);
    await g.runtime.usage.flush();
    const today = utcDayOf(new Date());

    const byKey = await call<typeof spendRoute>(
      g.o.filtration,
      "GET",
      `/management/spend?group_by=api_key&from=${today}`,
      {
        token: g.o.token,
      },
    );
    expect(byKey.status).toBe(200);
    const itemOf = (id: string) => byKey.body.items.find((i) => i.api_key_id === id);
    expect(itemOf(a.id)).toMatchObject({ requests: 2, prompt_tokens: 24, completion_tokens: 10 });
    expect(itemOf(a.id)?.cost).toBeCloseTo(2 * perCall, 9);
    expect(itemOf(a.id)?.key_prefix).toBe(a.key.slice(0, itemOf(a.id)?.key_prefix?.length));
    expect(itemOf(b.id)?.cost).toBeCloseTo(perCall, 9);

    const byDeployment = await call<typeof spendRoute>(
      g.o.filtration,
      "GET",
      "/management/spend?group_by=deployment",
      {
        token: g.o.token,
      },
    );
    const mine = byDeployment.body.items.find((i) => i.deployment_id === g.deploymentId);
    expect(mine?.deployment_name).toBe(g.model);
    expect(mine?.cost).toBeCloseTo(deploymentBefore + 3 * perCall, 9);

    const byDay = await call<typeof spendRoute>(
      g.o.filtration,
      "GET",
      `/management/spend?group_by=day&from=${today}&to=${today}`,
      {
        token: g.o.token,
      },
    );
    expect(byDay.body.items.map((i) => i.day)).toEqual([today]);
    // The day's spend is every row of spend_daily today, which is what the logs add up to.
    const logged = await g.o.t.app.db.select().from(spendDaily).where(eq(spendDaily.day, today));
    expect(byDay.body.total.cost).toBeCloseTo(
      logged.reduce((sum, r) => sum + r.cost, 0),
      9,
    );
    expect(byDay.body.total.requests).toBe(logged.reduce((sum, r) => sum + r.requests, 0));

    for (const query of ["group_by=week", "from=yesterday", "to=2026-02-31", `from=${today}&to=2000-01-01`]) {
      const bad = await call<ErrorBody>(g.o.filtration, "GET", `/management/spend?${query}`, {
        token: g.o.token,
      });
      expect(bad.status).toBe(400);
    }
  });

  test("malformed budgets are 400; a key's budget shows its api_key_id; another organization's key is 404", async () => {
    const { id } = await newKey(g);
    for (const body of [
      { config: { max_spend_per_day: -1 } },
      { config: { max_spend_per_day: 0 } },
      { config: { max_spend_per_week: 5 } },
      { config: { max_spend_per_month: "ten" } },
      { deployment_id: g.deploymentId, config: { max_spend_per_day: 1 } },
      { api_key_id: "not-a-key", config: { max_spend_per_day: 1 } },
    ]) {
      const res = await setBudget<ErrorBody>(g, body);
      expect(res.status).toBe(body.api_key_id ? 404 : 400);
    }
    const quotaByKey = await call<ErrorBody>(g.o.filtration, "POST", "/management/config/quota", {
      token: g.o.token,
      body: { api_key_id: id, config: { requests_per_day: 1 } },
    });
    expect(quotaByKey.status).toBe(400);
    expect(
      (await setBudget<ErrorBody>(g, { api_key_id: crypto.randomUUID(), config: { max_spend_per_day: 1 } }))
        .status,
    ).toBe(404);

    const set = await setBudget(g, { api_key_id: id, config: { max_spend_per_day: 100 } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ policy_type: "budget", api_key_id: id, deployment_id: null });
    const read = await call<typeof policyRoute>(
      g.o.filtration,
      "GET",
      `/management/config/budget?api_key_id=${id}`,
      {
        token: g.o.token,
      },
    );
    expect(read.body).toMatchObject({ api_key_id: id, config: { max_spend_per_day: 100 } });
    // The key's budget is not the organization's.
    const org = await call<typeof policyRoute>(g.o.filtration, "GET", "/management/config/budget", {
      token: g.o.token,
    });
    expect(org.body).toMatchObject({ api_key_id: null, source: "default", config: {} });
    const removed = await call<typeof deletePolicyRoute>(
      g.o.filtration,
      "DELETE",
      `/management/config/budget?api_key_id=${id}`,
      {
        token: g.o.token,
      },
    );
    expect(removed.body).toMatchObject({ api_key_id: id, deleted: true });
  });

  test("a key's daily budget: the call that crosses it is the last served; the next is 429 naming it; alerts at 80 % and 100 % once", async () => {
    await priced(g, { deployment_id: g.deploymentId, ...prices });
    const { id, key } = await newKey(g);
    expect((await setBudget(g, { api_key_id: id, config: { max_spend_per_day: 0.5 } })).status).toBe(200);
    g.clock.advance(1100);
    // 0 → 0.22 → 0.44 (88 %) → 0.66 (crosses 0.5): three served, then refused.
    for (let i = 0; i < 3; i++) expect((await callAndSettle(g, g, key)).status).toBe(200);
    expectRefused(await callAndSettle(g, g, key), "API key's daily budget", "limit 0.5", "0.66");
    // Other keys of the organization are not held by this key's budget.
    expect((await chat(g)).status).toBe(200);

    // More spend reported for the key (another gateway's batch) raises no second alert.
    await trackUsage(g.o.t.app, [
      {
        orgId: g.o.orgId,
        apiKeyId: id,
        deploymentId: g.deploymentId,
        promptTokens: 1,
        completionTokens: 1,
        cost: 1,
      },
    ]);
    const alerts = await alertsOf(g, id);
    expect(alerts.map((a) => a.details.threshold_percent).sort()).toEqual([100, 80]);
    for (const alert of alerts) {
      expect(alert.details).toMatchObject({ budget: "api_key", api_key_id: id, period: "day", limit: 0.5 });
      expect(alert.orgId).toBe(g.o.orgId);
    }
    expect(alerts.find((a) => a.details.threshold_percent === 80)?.details.spent).toBeCloseTo(0.44, 9);
  }, 30_000);

  test("a key's monthly budget counts the earlier days of the month", async () => {
    await priced(g, { deployment_id: g.deploymentId, ...prices });
    const { id, key } = await newKey(g);
    // Spent earlier this month (on the 1st, today: the day's row then holds it).
    await g.o.t.app.db.insert(spendDaily).values({
      orgId: g.o.orgId,
      apiKeyId: id,
      deploymentId: g.deploymentId,
      day: firstDayOfMonth(new Date()),
      requests: 1,
      cost: 0.3,
    });
    expect((await setBudget(g, { api_key_id: id, config: { max_spend_per_month: 0.7 } })).status).toBe(200);
    g.clock.advance(1100);
    // 0.3 → 0.52 → 0.74 (crosses 0.7): two served, then refused.
    for (let i = 0; i < 2; i++) expect((await callAndSettle(g, g, key)).status).toBe(200);
    expectRefused(await callAndSettle(g, g, key), "API key's monthly budget", "limit 0.7");
    const alerts = await alertsOf(g, id);
    expect(alerts.map((a) => [a.details.period, a.details.threshold_percent]).sort()).toEqual([
      ["month", 100],
      ["month", 80],
    ]);
  }, 30_000);
});

describe("an organization's budgets hold every key and every gateway, in process or apart", () => {
  let g: GatewayTest;
  let second: { runtime: InferenceRuntime; listener: Listener; filtration: Listener; url: string };
  beforeAll(async () => {
    g = await startGatewayTest();
    // A second inference gateway running apart, as another process behind a load balancer: it
    // resolves contexts, checks budgets and reports usage over HTTP through the filtration gateway.
    const filtration = listen(g.o.t.app, "filtration", 0, await buildHttpGateway(g.o.t.app, "filtration"));
    const runtime = createInferenceRuntime({
      port: httpFiltration({
        baseUrl: `http://127.0.0.1:${filtration.port}`,
        internalApiKey: g.o.t.config.internalApiKey,
      }),
      redis: undefined,
      log: g.o.t.app.log,
      statusOf: httpStatusOf,
      now: g.clock.now,
    });
    const app = { ...g.o.t.app, inference: runtime };
    const listener = listen(app, "inference", 0, await buildHttpGateway(app, "inference"));
    second = { runtime, listener, filtration, url: `http://127.0.0.1:${listener.port}` };
    await priced(g, { deployment_id: g.deploymentId, ...prices });
  }, 60_000);
  afterAll(async () => {
    await second.runtime.close();
    await second.listener.stop(1000);
    await second.filtration.stop(1000);
    await g.close();
  });

  test("daily, then monthly: the crossing call is the last served, through either gateway and any key", async () => {
    const a = await newKey(g);
    const b = await newKey(g);
    const gateways = [
      { url: g.url, runtime: g.runtime, clock: g.clock },
      { url: second.url, runtime: second.runtime, clock: g.clock },
    ];
    const at = (i: number) => gateways[i % 2] as (typeof gateways)[number];
    const callVia = (i: number, key: string) => callAndSettle({ url: at(i).url, model: g.model }, at(i), key);

    expect((await setBudget(g, { config: { max_spend_per_day: 0.5 } })).status).toBe(200);
    g.clock.advance(1100);
    const keys = [a.key, b.key, a.key];
    for (const [i, key] of keys.entries()) expect((await callVia(i, key)).status).toBe(200);
    expectRefused(await callVia(3, b.key), "organization's daily budget", "limit 0.5");
    expectRefused(await callVia(4, a.key), "organization's daily budget");

    // A monthly budget alone: 0.66 spent this month, 1 allowed.
    expect((await setBudget(g, { config: { max_spend_per_month: 1 } })).status).toBe(200);
    g.clock.advance(1100);
    expect((await callVia(5, b.key)).status).toBe(200);
    expect((await callVia(6, a.key)).status).toBe(200);
    expectRefused(await callVia(7, b.key), "organization's monthly budget", "limit 1", "1.1");

    const alerts = await alertsOf(g, g.o.orgId);
    expect(alerts.map((x) => [x.details.period, x.details.threshold_percent]).sort()).toEqual([
      ["day", 100],
      ["day", 80],
      ["month", 100],
      ["month", 80],
    ]);
    for (const alert of alerts) expect(alert.details.budget).toBe("organization");
  }, 40_000);
});
