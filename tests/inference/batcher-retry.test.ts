// The batchers that carry inference logs and usage to the filtration side when it is down or refuses:
// a failing sink is retried after a capped, jittered back-off (it once got 171 calls in 200 ms and a
// sink rejecting at once froze the event loop), a recovered sink gets the batch, and a batch refused
// with a 4xx is dropped, counted in /metrics and logged.

import { afterAll, expect, test } from "bun:test";
import { withInference } from "#server/compose.ts";
import { errorTable } from "#server/error-table.ts";
import { httpFiltration } from "#server/filtration-http-port.ts";
import type { LogFields, Logger } from "#services/context.ts";
import { Batcher, backoffMs } from "#services/inference/batcher.ts";
import { createInferenceRuntime } from "#services/inference/runtime.ts";
import { gatewayHandler, startTestApp, type TestApp } from "../support/app.ts";
import { simulateDelay, within } from "../support/wait.ts";

const apps: TestApp[] = [];
afterAll(async () => {
  for (const t of apps) await t.close();
}, 30_000);

/** Counts timer ticks while `ms` pass: a starved event loop ticks rarely or never. */
async function ticksDuring(ms: number): Promise<number> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  await simulateDelay(ms);
  clearInterval(timer);
  return ticks;
}

test("a sink that rejects at once gets a few calls in 200 ms, and the event loop keeps running", async () => {
  let calls = 0;
  const batcher = new Batcher<number>({
    sink: () => {
      calls++;
      return Promise.reject(new Error("filtration down"));
    },
    maxBatch: 1,
    intervalMs: 5,
    maxQueued: 1000,
    retry: { baseMs: 40, maxMs: 1000 },
  });
  const adding = setInterval(() => batcher.add(calls), 1);
  const ticks = await ticksDuring(200);
  clearInterval(adding);
  // Back-offs of 20-40, 40-80, 80-160 ms: at most four attempts fit.
  expect(calls).toBeGreaterThanOrEqual(2);
  expect(calls).toBeLessThanOrEqual(4);
  expect(ticks).toBeGreaterThan(15);
  expect(batcher.retries).toBe(calls);
  expect(batcher.pending).toBeGreaterThan(0);
  await batcher.close(0);
}, 30_000);

test("the back-off doubles from its base, stays under its cap and is jittered", () => {
  const retry = { baseMs: 100, maxMs: 1000 };
  expect([1, 2, 3, 4, 5, 10].map((n) => backoffMs(n, retry, () => 1))).toEqual([
    100, 200, 400, 800, 1000, 1000,
  ]);
  expect(backoffMs(3, retry, () => 0)).toBe(200);
  const spread = new Set(Array.from({ length: 20 }, () => backoffMs(3, retry)));
  expect(spread.size).toBeGreaterThan(1);
}, 30_000);

test("a sink that recovers gets the batch that failed, once", async () => {
  const received: number[] = [];
  const delivered = Promise.withResolvers<void>();
  let failures = 2;
  const batcher = new Batcher<number>({
    sink: async (batch) => {
      if (failures-- > 0) throw new Error("503");
      received.push(...batch);
      delivered.resolve();
    },
    maxBatch: 10,
    intervalMs: 10_000,
    maxQueued: 100,
    retry: { baseMs: 20, maxMs: 100 },
  });
  batcher.add(1);
  batcher.add(2);
  await batcher.flush();
  expect(batcher.pending).toBe(2);
  // The retry timer comes back by itself: no interval tick is due for ten seconds.
  await within(delivered.promise, 500, "the batch received on a retry");
  expect(received).toEqual([1, 2]);
  expect(batcher.retries).toBe(2);
  expect(batcher.pending).toBe(0);
  await batcher.close();
}, 30_000);

test("a full queue drops its oldest records and counts them", async () => {
  const batcher = new Batcher<number>({
    sink: () => Promise.reject(new Error("down")),
    maxBatch: 100,
    intervalMs: 10_000,
    maxQueued: 3,
  });
  for (let i = 0; i < 5; i++) batcher.add(i);
  expect(batcher.pending).toBe(3);
  expect(batcher.dropped).toBe(2);
  await batcher.close(0);
}, 30_000);

test("a batch the filtration side refuses (4xx) is dropped, counted in /metrics and logged; a 5xx is retried", async () => {
  let status = 422;
  let calls = 0;
  const filtration = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => {
      calls++;
      return Response.json({ error: { code: "validation_error", message: "bad entry" } }, { status });
    },
  });
  const lines: { level: string; msg: string; fields?: LogFields | undefined }[] = [];
  const log: Logger = {
    debug: () => {},
    info: () => {},
    warn: (msg, fields) => lines.push({ level: "warn", msg, fields }),
    error: (msg, fields) => lines.push({ level: "error", msg, fields }),
    child: () => log,
  };
  const t = await startTestApp();
  apps.push(t);
  const runtime = createInferenceRuntime({
    port: httpFiltration({ baseUrl: `http://127.0.0.1:${filtration.port}`, internalApiKey: "k" }),
    redis: undefined,
    log,
    statusOf: (error) => errorTable[error.code].status,
  });
  try {
    t.app = withInference(t.app, runtime);
    const { handle } = await gatewayHandler(t.app, "inference");

    runtime.usage.add({ orgId: "o", deploymentId: "d", apiKeyId: "k", promptTokens: 1, completionTokens: 2 });
    runtime.usage.add({ orgId: "o", deploymentId: "d", apiKeyId: "k", promptTokens: 3, completionTokens: 4 });
    await runtime.usage.flush();
    expect(calls).toBe(1);
    expect(runtime.usage.pending).toBe(0);
    expect(runtime.usage.refused).toBe(2);
    expect(runtime.usage.retries).toBe(0);
    const refusal = lines.find((l) => l.level === "error");
    expect(refusal?.msg).toBe("usage records refused by the filtration service; batch dropped");
    expect(refusal?.fields?.records).toBe(2);

    const metrics = await (await handle(new Request("http://localhost/metrics"))).text();
    expect(metrics).toContain('inference_batch_records_dropped_total{batch="usage",reason="refused"} 2');
    expect(metrics).toContain('inference_batch_records_dropped_total{batch="logs",reason="overflow"} 0');
    expect(metrics.match(/# HELP inference_batch_records_dropped_total/g)).toHaveLength(1);

    status = 503;
    runtime.usage.add({ orgId: "o", deploymentId: "d", apiKeyId: "k", promptTokens: 1, completionTokens: 1 });
    await runtime.usage.flush();
    expect(runtime.usage.pending).toBe(1);
    expect(runtime.usage.retries).toBe(1);
    expect(
      lines.some((l) => l.level === "warn" && l.msg === "usage records not written yet; will retry"),
    ).toBe(true);
  } finally {
    await runtime.usage.close(0);
    await runtime.logs.close(0);
    filtration.stop(true);
  }
}, 30_000);

test("close() ends by its deadline even with a sink that never answers, and hands back every unsent record", async () => {
  const batcher = new Batcher<number>({
    sink: () => new Promise<void>(() => {}), // accepts the call and never answers
    maxBatch: 2,
    intervalMs: 60_000,
    maxQueued: 100,
  });
  for (let i = 0; i < 5; i++) batcher.add(i);
  const started = performance.now();
  const left = await batcher.close(300);
  expect(performance.now() - started).toBeLessThan(1000);
  // The batch in flight counts as unsent: written twice is better than lost.
  expect(left.sort()).toEqual([0, 1, 2, 3, 4]);
  expect(batcher.pending).toBe(0);
});

test("close() waits for a batch in flight when nothing else is queued, and hands back nothing sent", async () => {
  const sent: number[] = [];
  const batcher = new Batcher<number>({
    sink: async (batch) => {
      await simulateDelay(100); // a slow receiver: the batch is in flight while close() runs
      sent.push(...batch);
    },
    maxBatch: 500,
    intervalMs: 60_000,
    maxQueued: 1000,
  });
  for (let i = 0; i < 5; i++) batcher.add(i);
  void batcher.flush(); // as the interval does: the batch leaves the queue and is in flight
  expect(batcher.pending).toBe(0);
  const left = await batcher.close(3000);
  expect(left).toEqual([]);
  expect(sent).toEqual([0, 1, 2, 3, 4]);
});
