// One reconciler per database: on PostgreSQL an advisory lock elects it; PGlite has one process.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { leadershipOf } from "#services/orchestration/leadership.ts";
import { freshDatabase, type TestDatabase, usingPostgres } from "../support/database.ts";

let database: TestDatabase;
beforeAll(async () => {
  database = await freshDatabase();
}, 60_000);
afterAll(() => database.drop());

test(
  usingPostgres
    ? "one leader at a time; the next takes over when it lets go"
    : "PGlite: the one process leads",
  async () => {
    const first = leadershipOf(database.handle.db);
    const second = leadershipOf(database.handle.db);
    expect(await first.lead()).toBe(true);
    expect(await first.lead()).toBe(true);
    expect(await second.lead()).toBe(!usingPostgres);
    await first.release();
    expect(await second.lead()).toBe(true);
    if (usingPostgres) expect(await first.lead()).toBe(false);
    await second.release();
    await first.release();
  },
);
