// Applies drizzle-kit's migrations (db/migrations) at start. The whole run holds a transaction-level
// advisory lock, so processes starting together against one PostgreSQL apply each migration once;
// the bookkeeping table is drizzle's own, so `drizzle-kit` tooling agrees with what ran.

import { join } from "node:path";
import { sql } from "drizzle-orm";
import { readMigrationFiles } from "drizzle-orm/migrator";
import type { Database } from "./client.ts";

const migrationsFolder = join(import.meta.dir, "migrations");
/** Any constant shared by all processes of the platform: "llmplat" in ASCII. */
const lockKey = 0x6c6c6d706c6174n;

export interface MigrationReport {
  applied: number;
  total: number;
}

export async function migrate(db: Database): Promise<MigrationReport> {
  const migrations = readMigrationFiles({ migrationsFolder });
  return db.transaction(async (tx) => {
    // A migration may take longer than the pool's statement time-out (db/resilient-postgres.ts).
    await tx.execute(sql`set local statement_timeout = 0`);
    await tx.execute(sql`select pg_advisory_xact_lock(${lockKey})`);
    await tx.execute(sql`create schema if not exists drizzle`);
    await tx.execute(sql`create table if not exists drizzle.__drizzle_migrations (
      id serial primary key, hash text not null, created_at bigint)`);
    const done = await tx.execute<{ created_at: string | number }>(
      sql`select created_at from drizzle.__drizzle_migrations order by created_at desc limit 1`,
    );
    const last = Number(rowsOf<{ created_at: string | number }>(done)[0]?.created_at ?? 0);
    let applied = 0;
    for (const migration of migrations) {
      if (migration.folderMillis <= last) continue;
      for (const statement of migration.sql) {
        if (statement.trim() !== "") await tx.execute(sql.raw(statement));
      }
      await tx.execute(
        sql`insert into drizzle.__drizzle_migrations (hash, created_at) values (${migration.hash}, ${migration.folderMillis})`,
      );
      applied++;
    }
    return { applied, total: migrations.length };
  });
}

/** postgres.js returns the rows array itself, PGlite an object with `rows`. */
export function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}
