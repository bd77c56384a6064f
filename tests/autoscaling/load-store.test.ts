// Each load store adds up the reports of several gateway processes, a report replaced by the next of
// the same process, and a report no longer counts once its process stops reporting (its TTL).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisStore } from "#adapters/redis/client.ts";
import { redisLoadStore } from "#adapters/redis/load-reports.ts";
import { InProcessLoadStore, type LoadStore } from "#core/ports/load-store.ts";
import { databaseLoadStore } from "#services/orchestration/autoscaling/database-load.ts";
import { freshDatabase, type TestDatabase } from "../support/database.ts";
import { until } from "../support/wait.ts";
import { redisUrl } from "./support.ts";

let database: TestDatabase;
let redis: RedisStore | undefined;
beforeAll(async () => {
  database = await freshDatabase();
  if (redisUrl) {
    redis = new RedisStore(redisUrl);
    await redis.connect();
  }
}, 60_000);
afterAll(async () => {
  redis?.close();
  await database.drop();
});

const stores: [string, () => LoadStore][] = [
  ["in-process", () => new InProcessLoadStore()],
  ["database", () => databaseLoadStore(database.handle.db)],
  ...(redisUrl ? [["redis", () => redisLoadStore(redis as RedisStore)] as [string, () => LoadStore]] : []),
];

for (const [name, make] of stores) {
  describe(name, () => {
    test("reports of two processes add up; a process's next report replaces its last", async () => {
      const store = make();
      const [d1, d2] = [crypto.randomUUID(), crypto.randomUUID()];
      await store.report("gw-a", new Map([[d1, { inFlight: 3, queued: 1, tokensPerSecond: 10 }]]), 5000);
      await store.report(
        "gw-b",
        new Map([
          [d1, { inFlight: 4, queued: 0, tokensPerSecond: 2.5 }],
          [d2, { inFlight: 1, queued: 0, tokensPerSecond: 0 }],
        ]),
        5000,
      );
      expect(await store.sum([d1, d2])).toEqual(
        new Map([
          [d1, { inFlight: 7, queued: 1, tokensPerSecond: 12.5 }],
          [d2, { inFlight: 1, queued: 0, tokensPerSecond: 0 }],
        ]),
      );
      await store.report("gw-a", new Map([[d1, { inFlight: 0, queued: 0, tokensPerSecond: 0 }]]), 5000);
      expect((await store.sum([d1])).get(d1)).toEqual({ inFlight: 4, queued: 0, tokensPerSecond: 2.5 });
    });

    test("a process that stops reporting stops counting when its report expires", async () => {
      const store = make();
      const d = crypto.randomUUID();
      await store.report("gone", new Map([[d, { inFlight: 5, queued: 0, tokensPerSecond: 0 }]]), 300);
      await store.report("alive", new Map([[d, { inFlight: 2, queued: 0, tokensPerSecond: 0 }]]), 10_000);
      expect((await store.sum([d])).get(d)?.inFlight).toBe(7);
      // The TTL runs on Redis's or PostgreSQL's clock (or the process's): asked until the report is gone.
      const left = await until(
        async () => {
          const inFlight = (await store.sum([d])).get(d)?.inFlight;
          return inFlight === 2 && inFlight;
        },
        { what: "the 300 ms report expired", timeoutMs: 500 },
      );
      expect(left).toBe(2);
    });
  });
}
