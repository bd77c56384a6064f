// Redis failing under a running inference gateway (docs/failure-modes.md): the test runs its own
// redis-server, kills it, freezes it and starts it again. While it is away, a deployment whose rate
// limit says `on_store_error: "open"` (the default) is served uncounted, one that says "closed" gets
// 503 deployment_unavailable with Retry-After, nothing waits for Redis, the failures are counted on
// /metrics and logged once per interval; once Redis is back, counting resumes without a restart.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { RedisStore } from "#adapters/redis/client.ts";
import type { OpenAIError } from "#contracts/openai/error.ts";
import type { Logger } from "#services/context.ts";
import { rateLimitStoreErrors } from "#services/inference/runtime.ts";
import { counterValue } from "#services/observability/counters.ts";
import { throttledWarning } from "#services/observability/throttled-log.ts";
import { chat, type GatewayTest, setPolicy, startGatewayTest } from "../inference/support.ts";
import { insertDeployment } from "../management/support.ts";
import { migratedDataDir } from "../support/data-dir.ts";
import { fetchJson, jsonBody, type ReadinessBody } from "../support/json.ts";
import { runPlatform } from "../support/process.ts";
import { sparePort, startTestRedis, type TestRedis } from "../support/redis-server.ts";
import { until } from "../support/wait.ts";

const limit = 3;

describe("rate limits while Redis fails", () => {
  let redis: TestRedis;
  let store: RedisStore;
  let g: GatewayTest;
  let closedModel: string;

  beforeAll(async () => {
    redis = await startTestRedis();
    store = new RedisStore(redis.url, { reconnectIntervalMs: 200 });
    await store.connect();
    g = await startGatewayTest({ store });
    await setPolicy(g, "rate_limit", { requests_per_minute: limit });
    closedModel = `closed-${crypto.randomUUID().slice(0, 8)}`;
    const closed = await insertDeployment(g.o.t.app.db, g.o.orgId, {
      name: closedModel,
      replicas: [{ state: "READY", endpoint: g.stub.baseUrl }],
    });
    await setPolicy(g, "rate_limit", { requests_per_minute: limit, on_store_error: "closed" }, closed.id);
  }, 30_000);
  afterAll(async () => {
    await g?.close();
    store?.close();
    await redis?.stop();
  }, 30_000);

  const statuses = async (model: string, n: number) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const response = await chat({ ...g, model });
      await response.arrayBuffer();
      out.push(response.status);
    }
    return out;
  };

  // Each test brings Redis to the state it starts from (running, counters in use), so the tests pass
  // alone (--test-name-pattern) and in any order (--randomize).
  const redisAnswering = async () => {
    await redis.start();
    // The store reconnects when a command finds it away (at most once per reconnect interval) and says
    // so to no one: requests set it off, as in production, and the test looks.
    await until(
      async () => {
        await (await chat({ ...g, model: closedModel })).arrayBuffer();
        return store.connected;
      },
      { what: "the gateway's store to reconnect to Redis", intervalMs: 100 },
    );
    expect(store.connected).toBe(true);
  };
  // A deployment with the limit that no test has counted yet: open on store errors (the default) or
  // closed.
  const uncountedModel = async (prefix: string, onStoreError?: "closed") => {
    const model = `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
    const deployment = await insertDeployment(g.o.t.app.db, g.o.orgId, {
      name: model,
      replicas: [{ state: "READY", endpoint: g.stub.baseUrl }],
    });
    const policy = onStoreError ? { on_store_error: onStoreError } : {};
    await setPolicy(g, "rate_limit", { requests_per_minute: limit, ...policy }, deployment.id);
    return model;
  };

  test("counted while Redis answers", async () => {
    await redisAnswering();
    expect(await statuses(await uncountedModel("open"), limit + 1)).toEqual([200, 200, 200, 429]);
    expect(await statuses(await uncountedModel("closed", "closed"), limit + 1)).toEqual([200, 200, 200, 429]);
  });

  test("Redis killed: open serves uncounted, closed answers 503 with Retry-After, both at once", async () => {
    await redisAnswering();
    const openModel = await uncountedModel("open");
    await statuses(openModel, limit + 1);
    await redis.stop();
    const errorsBefore = await counterValue(rateLimitStoreErrors, { store: "redis" });
    const started = performance.now();
    // The open deployment's limit is used up, yet it serves: nothing is counted while Redis is away.
    expect(await statuses(openModel, 5)).toEqual([200, 200, 200, 200, 200]);
    const refused = await chat({ ...g, model: closedModel });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect((await jsonBody<OpenAIError>(refused)).error).toMatchObject({ code: "deployment_unavailable" });
    expect(performance.now() - started).toBeLessThan(3000);
    expect(await counterValue(rateLimitStoreErrors, { store: "redis" })).toBe(errorsBefore + 6);

    const metrics = await (await fetch(`${g.url}/metrics`)).text();
    expect(metrics).toMatch(/^rate_limit_store_errors_total\{store="redis"\} \d+$/m);
  });

  test("Redis back: counting resumes without a restart", async () => {
    await redis.stop();
    await (await chat({ ...g, model: closedModel })).arrayBuffer();
    // The store reconnects in the background on the next commands; within a couple of seconds every
    // request is counted again (the restarted Redis starts from empty counters).
    await redisAnswering();
    const model = await uncountedModel("after", "closed");
    expect(await statuses(model, limit + 1)).toEqual([200, 200, 200, 429]);
  });

  test("a Redis that stops answering costs a request at most the command timeout", async () => {
    await redisAnswering();
    redis.freeze();
    try {
      const started = performance.now();
      const [open, closed] = await Promise.all([chat(g), chat({ ...g, model: closedModel })]);
      await Promise.all([open.arrayBuffer(), closed.arrayBuffer()]);
      expect(open.status).toBe(200);
      expect(closed.status).toBe(503);
      expect(performance.now() - started).toBeLessThan(2000);
    } finally {
      redis.thaw();
    }
  });
});

test("an unreachable REDIS_URL delays the start by at most a few seconds, and /ready reports it", async () => {
  const port = sparePort();
  const dataDir = await migratedDataDir("llmp-redis-start-");
  const platform = await runPlatform({
    DATA_DIR: dataDir,
    SERVICES: "inference,filtration",
    REDIS_URL: `redis://127.0.0.1:${port}`,
  });
  let redis: TestRedis | undefined;
  try {
    // Before: 31 s in Bun's own reconnect loop. Now one attempt of at most 2 s (refused: at once); the
    // rest of the start-up is the database's (about 3 s on PGlite here, more under load).
    const warning = platform.output.find((l) => l.includes("redis unreachable at start"));
    expect(JSON.parse(warning ?? "{}").waited_ms).toBeLessThanOrEqual(2500);
    expect(platform.startupMs).toBeLessThan(15_000);
    const url = `http://127.0.0.1:${platform.ports.inference}`;
    const down = await fetchJson<ReadinessBody>(`${url}/ready`);
    expect(down.status).toBe(503);
    expect(down.body.checks.redis).not.toBe("ok");
    redis = await startTestRedis(port);
    // Another process's readiness: asked for until it says ready.
    const status = await until(
      async () => {
        const ready = (await fetch(`${url}/ready`)).status;
        return ready === 200 && ready;
      },
      { what: "/ready to answer 200 once Redis is up", intervalMs: 100 },
    );
    expect(status).toBe(200);
  } finally {
    await platform.stop();
    await redis?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 60_000);

test("the outage warning is written once per interval, with the occurrences it stands for", () => {
  const lines: Record<string, unknown>[] = [];
  const log = { warn: (_msg: string, fields: Record<string, unknown> = {}) => lines.push(fields) };
  let now = 0;
  const warn = throttledWarning(log as unknown as Logger, "store down", 30_000, () => now);
  for (let i = 0; i < 100; i++) warn({ error: "closed" });
  now = 30_000;
  warn({ error: "closed" });
  expect(lines).toEqual([
    { error: "closed", occurrences: 1 },
    { error: "closed", occurrences: 100 },
  ]);
});
