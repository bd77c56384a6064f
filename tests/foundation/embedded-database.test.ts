// The embedded database (PGlite) runs in a worker of its own (db/pglite-remote.ts): its SQL no longer holds
// the event loop, and drizzle, transactions, errors, prepared statements and the template behave as they
// did in-thread. Always embedded, whatever TEST_DATABASE_URL says: the worker is what is under test.
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { openDatabase } from "#db/client.ts";
import { rowsOf } from "#db/migrate.ts";
import { executePrepared } from "#db/prepared.ts";
import { isUniqueViolation } from "#db/unique-violation.ts";
import { simulateDelay } from "../support/wait.ts";

const handle = await openDatabase({ pgliteDir: "memory://" });
await handle.db.execute(sql`create table t (id int primary key, at timestamptz, note text)`);
afterAll(() => handle.close());

const root = join(import.meta.dir, "..", "..");

test("a long query does not stop the event loop: a timer keeps firing while PGlite works", async () => {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  try {
    await handle.db.execute(sql`select count(*) from generate_series(1, 300000)`);
  } finally {
    clearInterval(timer);
  }
  // In-thread, PGlite's WebAssembly held the thread for the whole query: not one tick.
  expect(ticks).toBeGreaterThanOrEqual(2);
});

test("another caller's query waits for an open transaction; a failed savepoint rolls back only itself", async () => {
  const order: string[] = [];
  const begun = Promise.withResolvers<void>();
  const transaction = handle.db.transaction(async (tx) => {
    await tx.execute(sql`insert into t (id) values (1)`);
    begun.resolve();
    await simulateDelay(50); // the transaction stays open a while: the reader must wait for it
    await tx.transaction(async (inner) => {
      await inner.execute(sql`insert into t (id) values (2)`);
    });
    await tx
      .transaction(async (inner) => {
        await inner.execute(sql`insert into t (id) values (3)`);
        throw new Error("inner failed");
      })
      .catch((error: Error) => order.push(error.message));
    order.push("committed");
  });
  await begun.promise;
  const reader = handle.db
    .execute(sql`select count(*)::int as n from t`)
    .then((r) => order.push(`read ${rowsOf<{ n: number }>(r)[0]?.n}`));
  await Promise.all([transaction, reader]);
  expect(order).toEqual(["inner failed", "committed", "read 2"]);

  const failed = handle.db.transaction(async (tx) => {
    await tx.execute(sql`insert into t (id) values (4)`);
    throw new Error("caller's own error");
  });
  // Not `expect(failed).rejects`: bun:test's matcher can miss a rejection that arrives by a Worker's message
  // when reached from an earlier reply's continuation (oven-sh/bun#37189, still open on 1.4.x).
  expect(await failed.catch((error: Error) => error.message)).toBe("caller's own error");
  const ids = rowsOf<{ ids: number[] }>(
    await handle.db.execute(sql`select array_agg(id order by id) as ids from t`),
  );
  expect(ids[0]?.ids).toEqual([1, 2]);
});

test("errors keep PostgreSQL's code, and values cross as drizzle's pglite driver leaves them", async () => {
  const duplicate = await handle.db.execute(sql`insert into t (id) values (1)`).catch((e: unknown) => e);
  expect(isUniqueViolation(duplicate)).toBe(true);
  const [row] = rowsOf(
    await handle.db.execute(
      sql`select ${new Date("2026-01-02T03:04:05Z")}::timestamptz as at, '2026-01-02'::date as day,
        ${new Uint8Array([1, 2])}::bytea as bytes, ${5n}::int8 as big, '{"a":1}'::jsonb as doc`,
    ),
  );
  // Timestamps and dates stay PostgreSQL's text (drizzle's parsers), the rest as PGlite parses them.
  expect(row).toEqual({
    at: "2026-01-02 03:04:05+00",
    day: "2026-01-02",
    bytes: new Uint8Array([1, 2]),
    big: 5,
    doc: { a: 1 },
  });
});

test("prepared statements, the pgvector extension and a dump of the data directory work through the worker", async () => {
  const insert = (id: string) => sql`insert into t (id, note) values (${id}::int, 'p') returning id::text`;
  expect(await executePrepared(handle.db, insert("10"))).toEqual([{ id: "10" }]);
  expect(await executePrepared(handle.db, insert("11"))).toEqual([{ id: "11" }]);
  // Statements never seen before, run at once (as the first log and usage batches are): each its own name.
  const other = (id: string) => sql`insert into t (id, note) values (${id}::int, 'q') returning id::text`;
  const third = (id: string) => sql`insert into t (id, note) values (${id}::int, 'r') returning id::text`;
  expect(
    await Promise.all([
      executePrepared(handle.db, other("12")),
      executePrepared(handle.db, third("13")),
      executePrepared(handle.db, third("14")),
    ]),
  ).toEqual([[{ id: "12" }], [{ id: "13" }], [{ id: "14" }]]);
  await handle.db.execute(sql`create extension if not exists vector`);
  const distance = rowsOf<{ d: number }>(
    await handle.db.execute(sql`select '[1,2,3]'::vector <-> '[1,2,4]'::vector as d`),
  );
  expect(distance[0]?.d).toBe(1);
  const client = (handle.db as unknown as { $client: { dumpDataDir(c: "gzip"): Promise<Blob> } }).$client;
  expect((await client.dumpDataDir("gzip")).size).toBeGreaterThan(1000);
}, 30_000);

/** Runs a script in a process of its own and returns its exit code and output; it must end by itself. */
async function script(body: string): Promise<{ code: number; out: string }> {
  const proc = Bun.spawn(["bun", "-e", body], { cwd: root, stdout: "pipe", stderr: "pipe" });
  const killer = setTimeout(() => proc.kill(), 30_000);
  const [code, out, err] = await Promise.all([
    proc.exited,
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  clearTimeout(killer);
  return { code, out: out + err };
}

test("the worker keeps a process alive only while a query is in flight, and ends with close()", async () => {
  // Nothing else keeps these processes alive: an awaited query must still finish, and a process whose
  // database was closed (or, as in-thread, never closed) must exit by itself rather than hang.
  const open = `const { openDatabase } = await import("#db/client.ts"); const { sql } = await import("drizzle-orm");
    const h = await openDatabase({ pgliteDir: "memory://" });
    console.log((await h.db.execute(sql\`select 41 + 1 as n\`)).rows[0].n);`;
  const closed = await script(`${open} await h.close(); console.log(h.db.$client.closed);`);
  expect(closed).toEqual({ code: 0, out: expect.stringContaining("42\ntrue") });
  const forgotten = await script(open);
  expect(forgotten).toEqual({ code: 0, out: expect.stringContaining("42") });
}, 60_000);
