// Quotas, budgets and token limits hold under concurrency: each call reserves its maximum when it is
// admitted and settles with what it used at its end (core/ports/reservations.ts), so 100 calls
// sent at once against an allowance of 10 calls serve exactly 10 and refuse 90 with 429. The stub
// answers 12 prompt and 5 completion tokens a call; with max_tokens 5 and only output tokens priced
// (200,000 a million), a call reserves and costs exactly 1.0. Two gateways sharing one Redis (each as
// another process would be: its own runtime, counters and Redis connection) share the reservations.

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { and, eq, sql } from "drizzle-orm";
import { RedisStore } from "#adapters/redis/client.ts";
import type { ChatMessage } from "#contracts/openai/chat.ts";
import type { OpenAIError } from "#contracts/openai/error.ts";
import { deployments, spendDaily } from "#db/schema/index.ts";
import type { POST as createKeyRoute } from "#routes/filtration/management/api-keys/index.ts";
import { buildHttpGateway } from "#routes/gateways.ts";
import { httpStatusOf } from "#server/error-table.ts";
import { listen } from "#server/http/listen.ts";
import type { Listener } from "#server/start/platform.ts";
import { estimatePromptTokens } from "#services/inference/messages.ts";
import { createInferenceRuntime, type InferenceRuntime } from "#services/inference/runtime.ts";
import { inProcessFiltration } from "#services/inference-context/in-process-port.ts";
import { chat, type GatewayTest, setPolicy, startGatewayTest } from "../inference/support.ts";
import { call, jsonBody } from "../support/app.ts";
import { startTestRedis, type TestRedis } from "../support/redis-server.ts";

const messages: ChatMessage[] = [{ role: "user", content: "Hi there" }];
const promptEstimate = estimatePromptTokens(messages);
/** One call's cost: 5 completion tokens at 200,000 a million; prompts are free. */
const prices = { input_price_per_million: 0, output_price_per_million: 200_000 };

async function newKey(g: GatewayTest): Promise<{ id: string; key: string }> {
  const res = await call<typeof createKeyRoute>(g.o.filtration, "POST", "/management/api-keys", {
    token: g.o.token,
    body: { name: `k-${crypto.randomUUID().slice(0, 6)}` },
  });
  expect(res.status).toBe(201);
  return { id: res.body.id, key: res.body.key };
}

async function setBudget(g: GatewayTest, body: Record<string, unknown>) {
  const res = await call(g.o.filtration, "POST", "/management/config/budget", { token: g.o.token, body });
  expect(res.status).toBe(200);
}

async function price(g: GatewayTest) {
  const res = await call(g.o.orchestration, "POST", "/deployment/price", {
    token: g.o.token,
    body: { deployment_id: g.deploymentId, ...prices },
  });
  expect(res.status).toBe(200);
}

interface Outcome {
  served: number;
  codes: Record<string, number>;
}

/** `count` calls at once, through the gateways and keys given in turn. */
async function burst(
  targets: { url: string }[],
  model: string,
  keys: string[],
  count: number,
  body: Record<string, unknown> = { max_tokens: 5 },
): Promise<Outcome> {
  const answers = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const target = targets[i % targets.length] as { url: string };
      const response = await chat(
        { url: target.url, model, key: keys[i % keys.length] as string },
        { messages, ...body },
      );
      const json = await jsonBody<Partial<OpenAIError>>(response);
      return response.status === 200 ? "200" : `${response.status} ${json.error?.code}`;
    }),
  );
  const codes: Record<string, number> = {};
  for (const code of answers) codes[code] = (codes[code] ?? 0) + 1;
  return { served: codes["200"] ?? 0, codes };
}

const spentToday = async (g: GatewayTest, apiKeyId?: string) => {
  const [row] = await g.o.t.app.db
    .select({ cost: sql<number>`coalesce(sum(${spendDaily.cost}), 0)`.mapWith(Number) })
    .from(spendDaily)
    .where(
      apiKeyId
        ? and(eq(spendDaily.orgId, g.o.orgId), eq(spendDaily.apiKeyId, apiKeyId))
        : eq(spendDaily.orgId, g.o.orgId),
    );
  return row?.cost ?? 0;
};

/**
 * The context cache of a gateway is at most a second old: a policy just set is seen after that. The
 * gateways' clock is moved on by that second (both gateways of a test share `g.clock`).
 */
const policiesSeen = (g: GatewayTest) => g.clock.advance(1100);

describe("one gateway", () => {
  let g: GatewayTest;
  beforeEach(async () => {
    g = await startGatewayTest();
  }, 60_000);
  afterEach(() => g.close(), 30_000);

  test("a key's daily budget of 10 at 1.0 a call: 100 parallel calls serve exactly 10, then 429 insufficient_quota", async () => {
    await price(g);
    const { id, key } = await newKey(g);
    await setBudget(g, { api_key_id: id, config: { max_spend_per_day: 10 } });
    policiesSeen(g);
    const outcome = await burst([{ url: g.url }], g.model, [key], 100);
    expect(outcome.codes).toEqual({ "200": 10, "429 insufficient_quota": 90 });
    await g.runtime.usage.flush();
    expect(await spentToday(g, id)).toBeCloseTo(10, 9);
    // Settled to what was used: still nothing left.
    expect((await burst([{ url: g.url }], g.model, [key], 1)).codes).toEqual({ "429 insufficient_quota": 1 });
  }, 60_000);

  test("an organization's daily budget over four keys: exactly 10 of 100", async () => {
    await price(g);
    const keys = await Promise.all([1, 2, 3, 4].map(() => newKey(g)));
    await setBudget(g, { config: { max_spend_per_day: 10 } });
    policiesSeen(g);
    const outcome = await burst(
      [{ url: g.url }],
      g.model,
      keys.map((k) => k.key),
      100,
    );
    expect(outcome.codes).toEqual({ "200": 10, "429 insufficient_quota": 90 });
    await g.runtime.usage.flush();
    expect(await spentToday(g)).toBeCloseTo(10, 9);
  }, 60_000);

  test("requests_per_day of 10: exactly 10 of 100", async () => {
    await setPolicy(g, "quota", { requests_per_day: 10 });
    policiesSeen(g);
    const outcome = await burst([{ url: g.url }], g.model, [g.key], 100);
    expect(outcome.codes).toEqual({ "200": 10, "429 insufficient_quota": 90 });
  }, 60_000);

  test("tokens_per_day: each call reserves its prompt and max_tokens; exactly as many as fit, then 429", async () => {
    // A call reserves promptEstimate + 5 tokens: ten of them fill the day.
    await setPolicy(g, "quota", { tokens_per_day: 10 * (promptEstimate + 5) });
    policiesSeen(g);
    const outcome = await burst([{ url: g.url }], g.model, [g.key], 100);
    expect(outcome.codes).toEqual({ "200": 10, "429 insufficient_quota": 90 });
  }, 60_000);

  test("a failed call gives back what it reserved", async () => {
    await setPolicy(g, "quota", { requests_per_day: 3 });
    policiesSeen(g);
    // The replica refuses every call (a 400 of its own): nothing used, everything given back.
    g.stub.behaviour = "refuse";
    // Three admitted at once (the other seven wait on their reservations), all three refused.
    expect((await burst([{ url: g.url }], g.model, [g.key], 10)).codes).toEqual({
      "400 unsupported_content": 3,
      "429 insufficient_quota": 7,
    });
    g.stub.behaviour = "ok";
    expect((await burst([{ url: g.url }], g.model, [g.key], 10)).codes).toEqual({
      "200": 3,
      "429 insufficient_quota": 7,
    });
  }, 60_000);

  test("tokens_per_minute reserves max_tokens with the prompt: exactly 10 of 100", async () => {
    // A call charges promptEstimate + 1000 tokens; the limit holds ten. It refills one call's worth
    // in 6 s, longer than the burst takes.
    await setPolicy(g, "rate_limit", { tokens_per_minute: 10 * (promptEstimate + 1000) });
    policiesSeen(g);
    const outcome = await burst([{ url: g.url }], g.model, [g.key], 100, { max_tokens: 1000 });
    expect(outcome.codes).toEqual({ "200": 10, "429 rate_limit_exceeded": 90 });
  }, 60_000);

  test("tokens_per_minute without max_tokens reserves what the context leaves: 100 parallel calls stay within the limit and one call", async () => {
    // Finding 12: only the prompt was charged, so 100 calls writing 488 tokens each passed a limit of
    // 3,000 by 16x. The deployment's context holds 1,000 tokens: a call without max_tokens may use
    // that much, and it is reserved; the replica here writes until 500 (12 + 488) each time.
    await g.o.t.app.db
      .update(deployments)
      .set({ configuration: sql`${deployments.configuration} || '{"context_size": 1000}'::jsonb` })
      .where(eq(deployments.id, g.deploymentId));
    g.stub.completionTokens = 488;
    const limit = 3000;
    await setPolicy(g, "rate_limit", { tokens_per_minute: limit });
    policiesSeen(g);
    const started = performance.now();
    const outcome = await burst([{ url: g.url }], g.model, [g.key], 100, {});
    const elapsedMs = performance.now() - started;
    const used = outcome.served * 500;
    // The documented bound (docs/security.md): the limit, plus one call's maximum (the call that crosses
    // it), plus what the limit refills while the burst lasts.
    const bound = limit + 1000 + (limit * elapsedMs) / 60_000;
    console.log(
      `served ${outcome.served} of 100: ${used} tokens against ${limit} (bound ${bound.toFixed(0)})`,
    );
    expect(outcome.served).toBeGreaterThanOrEqual(3);
    expect(used).toBeLessThanOrEqual(bound);
    expect(outcome.codes["429 rate_limit_exceeded"]).toBe(100 - outcome.served);
  }, 60_000);
});

describe("two gateways sharing PostgreSQL and Redis", () => {
  let g: GatewayTest;
  let redis: TestRedis;
  const stores: RedisStore[] = [];
  let second: { runtime: InferenceRuntime; listener: Listener };
  beforeAll(async () => {
    redis = await startTestRedis();
    const store = () => {
      const s = new RedisStore(redis.url);
      stores.push(s);
      return s;
    };
    const first = store();
    await first.connect();
    g = await startGatewayTest({ store: first });
    const other = store();
    await other.connect();
    // The second gateway's runtime: counters, caches and a Redis connection of its own, as another
    // process has; only PostgreSQL and Redis are shared.
    const runtime = createInferenceRuntime({
      port: inProcessFiltration(g.o.t.app, { now: g.clock.now }),
      redis: other,
      log: g.o.t.app.log,
      statusOf: httpStatusOf,
      now: g.clock.now,
    });
    const app = { ...g.o.t.app, inference: runtime };
    second = { runtime, listener: listen(app, "inference", 0, await buildHttpGateway(app, "inference")) };
  }, 60_000);
  afterAll(async () => {
    await second.runtime.close();
    await second.listener.stop(1000);
    await g.close();
    for (const s of stores) s.close();
    await redis.stop();
  }, 30_000);

  test("a budget of 10 at 1.0 a call: 100 calls split over both serve exactly 10", async () => {
    await price(g);
    const { id, key } = await newKey(g);
    await setBudget(g, { api_key_id: id, config: { max_spend_per_day: 10 } });
    policiesSeen(g);
    const targets = [{ url: g.url }, { url: `http://127.0.0.1:${second.listener.port}` }];
    const outcome = await burst(targets, g.model, [key], 100);
    expect(outcome.codes).toEqual({ "200": 10, "429 insufficient_quota": 90 });
    await Promise.all([g.runtime.usage.flush(), second.runtime.usage.flush()]);
    expect(await spentToday(g, id)).toBeCloseTo(10, 9);
  }, 60_000);
});

describe("Redis down", () => {
  let g: GatewayTest;
  let redis: TestRedis;
  let store: RedisStore;
  beforeAll(async () => {
    redis = await startTestRedis();
    store = new RedisStore(redis.url);
    await store.connect();
    g = await startGatewayTest({ store });
  }, 60_000);
  afterAll(async () => {
    await g.close();
    store.close();
    await redis.stop();
  }, 30_000);

  test("while Redis does not answer, the process's own counters hold the budget: exactly 10 of 100", async () => {
    await price(g);
    const { id, key } = await newKey(g);
    await setBudget(g, { api_key_id: id, config: { max_spend_per_day: 10 } });
    policiesSeen(g);
    await redis.stop();
    const outcome = await burst([{ url: g.url }], g.model, [key], 100);
    expect(outcome.codes).toEqual({ "200": 10, "429 insufficient_quota": 90 });
    const metrics = await (await fetch(`${g.url}/metrics`)).text();
    expect(metrics).toMatch(/^reservation_store_errors_total\{store="redis"\} [1-9]\d*$/m);
  }, 60_000);
});
