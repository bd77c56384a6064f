// The sequence pool on its own, with plain objects holding token lists standing in for context sequences.
import { expect, test } from "bun:test";
import { QueueClosedError, SequencePool, sharedPrefix } from "#adapters/engines/llama.cpp/sequences.ts";

interface Fake {
  name: string;
  tokens: number[];
}

const fake = (name: string, tokens: number[] = []): Fake => ({ name, tokens });

function poolOf(items: Fake[]) {
  const cleared: string[] = [];
  const pool = new SequencePool(items, {
    tokens: (item) => item.tokens,
    clear: async (item) => {
      cleared.push(item.name);
      item.tokens = [];
    },
  });
  return { pool, cleared };
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

test("requests beyond the free items wait, and are served in arrival order", async () => {
  const { pool } = poolOf([fake("a"), fake("b")]);
  const first = await pool.acquire([]);
  const second = await pool.acquire([]);
  const order: number[] = [];
  const waiting = [1, 2, 3].map((n) =>
    pool.acquire([]).then((lease) => {
      order.push(n);
      return lease;
    }),
  );
  expect(pool.waitingCount).toBe(3);
  await first.release();
  await second.release();
  const [third, fourth] = await Promise.all([waiting[0], waiting[1]]);
  expect(order).toEqual([1, 2]);
  await third?.release();
  const fifth = await waiting[2];
  expect(order).toEqual([1, 2, 3]);
  await Promise.all([fourth?.release(), fifth?.release()]);
  expect(pool.freeCount).toBe(2);
});

test("a request takes the free sequence sharing the longest prefix with its prompt", async () => {
  const conversation = range(0, 100);
  const { pool } = poolOf([fake("other", [0, 1, 2, 500, 501]), fake("mine", conversation), fake("empty")]);
  const lease = await pool.acquire([...conversation, 900, 901]);
  expect(lease.item.name).toBe("mine");
  expect(lease.sharedPrefix).toBe(100);
  // Longest wins even when several share something.
  const next = await pool.acquire([0, 1, 2, 500, 777]);
  expect(next.item.name).toBe("other");
  expect(next.sharedPrefix).toBe(4);
});

test("a prompt sharing only a few template tokens takes the least recently used sequence instead", async () => {
  const items = [
    fake("a", [1, 2, ...range(100, 200)]),
    fake("b", [1, 2, ...range(300, 400)]),
    fake("c", range(600, 700)),
  ];
  const { pool } = poolOf(items);
  // Use c, then b, then a: a is now the most recently used, and c the least.
  for (const name of ["c", "b", "a"]) {
    const item = items.find((i) => i.name === name) as Fake;
    const lease = await pool.acquire(item.tokens);
    expect(lease.item.name).toBe(name);
    await lease.release();
  }
  // [1, 2] is shared with a and b, but 2 of 100 prompt tokens is below the similarity threshold.
  const lease = await pool.acquire([1, 2, ...range(1000, 1098)]);
  expect(lease.item.name).toBe("c");
  await lease.release();
  // Now b is the oldest: a new conversation evicts it, a's stays.
  const again = await pool.acquire(range(5000, 5100));
  expect(again.item.name).toBe("b");
});

test("a released sequence keeps its tokens; a failed one is cleared", async () => {
  const { pool, cleared } = poolOf([fake("a", [1, 2, 3])]);
  const ok = await pool.acquire([1, 2, 3, 4]);
  await ok.release();
  expect(cleared).toEqual([]);
  const failed = await pool.acquire([1, 2, 3, 4]);
  expect(failed.sharedPrefix).toBe(3);
  await failed.release({ clear: true });
  expect(cleared).toEqual(["a"]);
  expect((await pool.acquire([1, 2, 3])).sharedPrefix).toBe(0);
});

test("a waiter is served the best of what is free when its turn comes", async () => {
  const { pool } = poolOf([fake("a", range(0, 50)), fake("b", range(100, 150))]);
  const a = await pool.acquire(range(0, 50));
  const b = await pool.acquire(range(100, 150));
  const waiting = pool.acquire(range(0, 60));
  await b.release();
  expect((await waiting).item.name).toBe("b");
  await a.release();
  expect(pool.freeCount).toBe(1);
});

test("a waiter whose client leaves drops out of the queue", async () => {
  const { pool } = poolOf([fake("only")]);
  const held = await pool.acquire([]);
  const leaving = new AbortController();
  const gone = pool.acquire([], leaving.signal).catch((e: unknown) => e);
  const next = pool.acquire([]);
  leaving.abort(new Error("client left"));
  expect(((await gone) as Error).message).toBe("client left");
  await held.release();
  expect((await next).item.name).toBe("only");
});

test("releasing twice gives the item back once", async () => {
  const { pool } = poolOf([fake("only")]);
  const lease = await pool.acquire([]);
  await Promise.all([lease.release(), lease.release()]);
  expect(pool.freeCount).toBe(1);
});

test("closing fails the waiters and refuses new requests", async () => {
  const { pool } = poolOf([fake("x")]);
  await pool.acquire([]);
  const waiting = pool.acquire([]).catch((e: unknown) => e);
  pool.close();
  expect(await waiting).toBeInstanceOf(QueueClosedError);
  expect(await pool.acquire([]).catch((e: unknown) => e)).toBeInstanceOf(QueueClosedError);
});

test("sharedPrefix counts the leading tokens two lists have in common", () => {
  expect(sharedPrefix([1, 2, 3], [1, 2, 4])).toBe(2);
  expect(sharedPrefix([1, 2], [1, 2, 3])).toBe(2);
  expect(sharedPrefix([], [1])).toBe(0);
});
