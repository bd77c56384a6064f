// The sequence pool on its own, with plain values standing in for context sequences.
import { expect, test } from "bun:test";
import { QueueClosedError, SequencePool } from "#adapters/engines/llama.cpp/sequences.ts";

test("requests beyond the free items wait, and are served in arrival order", async () => {
  const resets: string[] = [];
  const pool = new SequencePool(["a", "b"], async (item) => {
    resets.push(item);
  });
  const first = await pool.acquire();
  const second = await pool.acquire();
  const order: number[] = [];
  const waiting = [1, 2, 3].map((n) =>
    pool.acquire().then((lease) => {
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
  expect(resets).toEqual(["a", "b", "a"]);
  await Promise.all([fourth?.release(), fifth?.release()]);
  expect(pool.freeCount).toBe(2);
});

test("a waiter whose client leaves drops out of the queue", async () => {
  const pool = new SequencePool([1], async () => {});
  const held = await pool.acquire();
  const leaving = new AbortController();
  const gone = pool.acquire(leaving.signal).catch((e: unknown) => e);
  const next = pool.acquire();
  leaving.abort(new Error("client left"));
  expect(((await gone) as Error).message).toBe("client left");
  await held.release();
  expect((await next).item).toBe(1);
});

test("releasing twice gives the item back once", async () => {
  const pool = new SequencePool(["only"], async () => {});
  const lease = await pool.acquire();
  await Promise.all([lease.release(), lease.release()]);
  expect(pool.freeCount).toBe(1);
});

test("closing fails the waiters and refuses new requests", async () => {
  const pool = new SequencePool(["x"], async () => {});
  await pool.acquire();
  const waiting = pool.acquire().catch((e: unknown) => e);
  pool.close();
  expect(await waiting).toBeInstanceOf(QueueClosedError);
  expect(await pool.acquire().catch((e: unknown) => e)).toBeInstanceOf(QueueClosedError);
});
