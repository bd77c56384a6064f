import { expect, test } from "bun:test";
import { Batcher } from "#services/inference/batcher.ts";
import { RevalidatingCache } from "#services/inference/revalidating-cache.ts";
import { within } from "../support/wait.ts";

const options = { refreshAfterMs: 500, maxAgeMs: 1000, staleForMs: 30_000, maxEntries: 100 };

function source() {
  const state = { value: "v1", calls: 0, down: false };
  const load = async (_key: string) => {
    state.calls++;
    if (state.down) throw new Error("unreachable");
    return state.value;
  };
  return { state, load };
}

test("fresh entries are served without calling the source; concurrent misses load once", async () => {
  let now = 0;
  const { state, load } = source();
  const cache = new RevalidatingCache(load, { ...options, now: () => now });
  const values = await Promise.all([cache.get("k"), cache.get("k"), cache.get("k")]);
  expect(values).toEqual(["v1", "v1", "v1"]);
  expect(state.calls).toBe(1);
  now = 400;
  expect(await cache.get("k")).toBe("v1");
  expect(state.calls).toBe(1);
});

test("between refreshAfter and maxAge the old value is served and refreshed in the background", async () => {
  let now = 0;
  const { state, load } = source();
  const cache = new RevalidatingCache(load, { ...options, now: () => now });
  await cache.get("k");
  state.value = "v2";
  now = 700;
  expect(await cache.get("k")).toBe("v1");
  await cache.settled();
  expect(await cache.get("k")).toBe("v2");
});

test("a change is seen within maxAge: an older entry is revalidated before use", async () => {
  let now = 0;
  const { state, load } = source();
  const cache = new RevalidatingCache(load, { ...options, now: () => now });
  await cache.get("k");
  state.value = "revoked";
  now = 1001;
  expect(await cache.get("k")).toBe("revoked");
});

test("while the source is unreachable, known entries keep serving until staleFor; unknown keys fail", async () => {
  let now = 0;
  const { state, load } = source();
  const cache = new RevalidatingCache(load, { ...options, now: () => now });
  await cache.get("known");
  state.down = true;
  now = 20_000;
  expect(await cache.get("known")).toBe("v1");
  await expect(cache.get("new")).rejects.toThrow("unreachable");
  now = 31_000;
  await expect(cache.get("known")).rejects.toThrow("unreachable");
});

test("the batcher sends full batches at once and the rest on its interval", async () => {
  const batches: number[][] = [];
  const secondSent = Promise.withResolvers<void>();
  const batcher = new Batcher<number>({
    sink: async (b) => {
      if (batches.push(b) === 2) secondSent.resolve();
    },
    maxBatch: 3,
    intervalMs: 50,
    maxQueued: 100,
  });
  for (let i = 0; i < 4; i++) batcher.add(i);
  // The full batch is handed to the sink within add() itself.
  expect(batches).toEqual([[0, 1, 2]]);
  await within(secondSent.promise, 80, "the rest sent on the 50 ms interval");
  expect(batches).toEqual([[0, 1, 2], [3]]);
  await batcher.close();
});

test("a failed batch is kept and sent later; close() flushes what is left", async () => {
  const received: number[] = [];
  let failing = true;
  const batcher = new Batcher<number>({
    sink: async (b) => {
      if (failing) throw new Error("filtration down");
      received.push(...b);
    },
    maxBatch: 10,
    intervalMs: 10_000,
    maxQueued: 100,
  });
  batcher.add(1);
  batcher.add(2);
  await batcher.flush();
  expect(batcher.pending).toBe(2);
  failing = false;
  batcher.add(3);
  await batcher.close();
  expect(received).toEqual([1, 2, 3]);
  expect(batcher.pending).toBe(0);
});

test("past maxEntries the least recently used key goes, not the first inserted: a hot key stays", async () => {
  const { state, load } = source();
  const cache = new RevalidatingCache(load, { ...options, maxEntries: 3, now: () => 0 });
  await cache.get("hot");
  await cache.get("b");
  await cache.get("c");
  await cache.get("hot");
  await cache.get("d");
  expect(cache.size).toBe(3);
  const calls = state.calls;
  await cache.get("hot");
  expect(state.calls).toBe(calls);
  await cache.get("b");
  expect(state.calls).toBe(calls + 1);
});
