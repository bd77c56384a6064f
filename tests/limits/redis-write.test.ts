// A command reaches Redis when it is sent, not when the event loop's current task ends: the rate
// limiter's round trip overlaps the input scan that follows it (services/inference/admission.ts). With
// Bun's default auto-pipelining the server would see the command only after the work below.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { RedisStore } from "#adapters/redis/client.ts";
import { startTestRedis, type TestRedis } from "../support/redis-server.ts";

let redis: TestRedis;
let store: RedisStore;
beforeAll(async () => {
  redis = await startTestRedis();
  store = new RedisStore(redis.url);
  await store.connect();
}, 30_000);
afterAll(async () => {
  store.close();
  await redis.stop();
});

test("the server receives a command before the sender's synchronous work that follows it", async () => {
  const workMs = 200;
  const sentAt = performance.timeOrigin + performance.now();
  const answer = store.send("TIME", []);
  const until = performance.now() + workMs;
  while (performance.now() < until) {
    // The caller's own work (a scan) while the command travels.
  }
  const [seconds, micros] = (await answer) as [string, string];
  const seenAt = Number(seconds) * 1000 + Number(micros) / 1000;
  expect(seenAt - sentAt).toBeLessThan(workMs / 2);
});
