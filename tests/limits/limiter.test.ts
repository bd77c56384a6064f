import { afterAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { RedisLimiter } from "#adapters/redis/gcra.ts";
import { InProcessLimiter, type RateLimiter } from "#core/ports/rate-limiter.ts";

const redisUrl = process.env.REDIS_URL;
const clients: RedisClient[] = [];
async function redis(): Promise<RedisClient> {
  const client = new RedisClient(redisUrl as string);
  await client.connect();
  clients.push(client);
  return client;
}
afterAll(() => {
  for (const c of clients) c.close();
});

const minute = 60_000;
const makers: [string, () => Promise<RateLimiter>][] = [["in process", async () => new InProcessLimiter()]];
if (redisUrl)
  makers.push(["Redis", async () => new RedisLimiter(await redis(), `llmp:test:${crypto.randomUUID()}:`)]);

describe.each(makers)("%s limiter", (_name, make) => {
  test("exactly N of 200 concurrent requests pass a limit of N per minute", async () => {
    const limiter = await make();
    const n = 37;
    const decisions = await Promise.all(
      Array.from({ length: 200 }, () =>
        limiter.take("key-a", { requests: { limit: n, periodMs: minute } }, 0),
      ),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(n);
    const denied = decisions.find((d) => !d.allowed);
    expect(denied?.retryAfterMs).toBeGreaterThan(0);
    expect(denied?.retryAfterMs).toBeLessThanOrEqual(minute / n + 1);
    expect(denied?.requests).toEqual({ limit: n, remaining: 0 });
  });

  test("tokens per minute: a request is charged to neither limit when one refuses", async () => {
    const limiter = await make();
    const limits = { requests: { limit: 100, periodMs: minute }, tokens: { limit: 1000, periodMs: minute } };
    const first = await limiter.take("key-b", limits, 800);
    expect(first).toMatchObject({ allowed: true, requests: { remaining: 99 }, tokens: { remaining: 200 } });
    const refused = await limiter.take("key-b", limits, 300);
    expect(refused.allowed).toBe(false);
    // The refused request did not use up a request slot.
    expect(refused.requests?.remaining).toBe(99);
    const fits = await limiter.take("key-b", limits, 200);
    expect(fits).toMatchObject({ allowed: true, requests: { remaining: 98 }, tokens: { remaining: 0 } });
  });

  test("a call's maximum may cross the limit while it is not used up; its prompt must fit", async () => {
    const limiter = await make();
    const limits = { tokens: { limit: 1000, periodMs: minute } };
    // A prompt of 100 with a completion of up to 1,900 (a context of 2,000): larger than the whole
    // limit, yet it runs; the call after it waits until the real usage comes back under the limit.
    expect((await limiter.take("key-x", limits, 2000, 100)).allowed).toBe(true);
    const waiting = await limiter.take("key-x", limits, 2000, 100);
    expect(waiting.allowed).toBe(false);
    expect(waiting.retryAfterMs).toBeGreaterThan(0);
    await limiter.correct("key-x", limits, 300 - 2000); // it used 300
    expect((await limiter.take("key-x", limits, 2000, 100)).allowed).toBe(true);
    // A prompt alone larger than what is left never starts.
    expect((await limiter.take("key-y", limits, 1200, 1100)).allowed).toBe(false);
  });

  test("an estimate corrected with the real usage gives tokens back", async () => {
    const limiter = await make();
    const limits = { tokens: { limit: 1000, periodMs: minute } };
    expect((await limiter.take("key-c", limits, 900)).tokens?.remaining).toBe(100);
    await limiter.correct("key-c", limits, -600);
    expect((await limiter.take("key-c", limits, 500)).allowed).toBe(true);
  });

  test("keys are independent", async () => {
    const limiter = await make();
    const rule = { requests: { limit: 1, periodMs: minute } };
    expect((await limiter.take("key-d1", rule, 0)).allowed).toBe(true);
    expect((await limiter.take("key-d2", rule, 0)).allowed).toBe(true);
    expect((await limiter.take("key-d1", rule, 0)).allowed).toBe(false);
  });
});

test.skipIf(!redisUrl)("two limiters on separate Redis connections enforce one limit", async () => {
  const prefix = `llmp:test:${crypto.randomUUID()}:`;
  const a = new RedisLimiter(await redis(), prefix);
  const b = new RedisLimiter(await redis(), prefix);
  const rule = { requests: { limit: 25, periodMs: minute } };
  const decisions = await Promise.all(
    Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).take("shared", rule, 0)),
  );
  expect(decisions.filter((d) => d.allowed)).toHaveLength(25);
});

test("the in-process limiter lets units back in at the rate of the limit", async () => {
  let now = 1_000_000;
  const limiter = new InProcessLimiter(() => now);
  const rule = { requests: { limit: 60, periodMs: minute } };
  for (let i = 0; i < 60; i++) expect((await limiter.take("k", rule, 0)).allowed).toBe(true);
  expect((await limiter.take("k", rule, 0)).allowed).toBe(false);
  now += 1000; // one interval
  expect((await limiter.take("k", rule, 0)).allowed).toBe(true);
  expect((await limiter.take("k", rule, 0)).allowed).toBe(false);
});

describe.skipIf(!redisUrl)("Redis limiter round trips", () => {
  const counted = async () => {
    const client = await redis();
    const commands: string[] = [];
    return {
      commands,
      redis: {
        send(command: string, args: string[]) {
          commands.push(command);
          return client.send(command, args);
        },
      },
    };
  };
  const limits = { requests: { limit: 100, periodMs: minute }, tokens: { limit: 1000, periodMs: minute } };

  test("a token correction rides along with the key's next request: one Redis command a request", async () => {
    const { commands, redis } = await counted();
    const limiter = new RedisLimiter(redis, `llmp:test:${crypto.randomUUID()}:`);
    await limiter.take("warm-up", limits, 0); // the script is loaded into Redis once
    commands.length = 0;
    expect((await limiter.take("key", limits, 900)).tokens?.remaining).toBe(100);
    await limiter.correct("key", limits, -600);
    const next = await limiter.take("key", limits, 500);
    expect(next.allowed).toBe(true);
    expect(next.tokens?.remaining).toBe(200);
    expect(commands).toEqual(["EVALSHA", "EVALSHA"]);
  });

  test("a correction no request carries is sent on its own within a second", async () => {
    const prefix = `llmp:test:${crypto.randomUUID()}:`;
    // The limiter's timer, held: the test sends what it would send, when it would, at once.
    const flushes: { send: () => Promise<void>; delayMs: number }[] = [];
    const a = new RedisLimiter(await redis(), prefix, Date.now, (send, delayMs) =>
      flushes.push({ send, delayMs }),
    );
    expect((await a.take("key", limits, 900)).allowed).toBe(true);
    await a.correct("key", limits, -600);
    expect(flushes).toHaveLength(1);
    expect(flushes[0]?.delayMs).toBeLessThan(1000);
    await flushes[0]?.send();
    // Another gateway (its own limiter, same Redis) sees the tokens given back.
    const b = new RedisLimiter(await redis(), prefix);
    expect((await b.take("key", limits, 500)).allowed).toBe(true);
  });
});
