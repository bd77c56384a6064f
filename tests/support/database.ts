// A fresh, migrated database for one test file: a new database on the PostgreSQL of TEST_DATABASE_URL
// when it is set (CI: the real server), otherwise an in-memory PGlite. Same code, same SQL.
import postgres from "postgres";
import { type DatabaseHandle, openDatabase } from "#db/client.ts";
import { migrate } from "#db/migrate.ts";

export const testDatabaseUrl = process.env.TEST_DATABASE_URL || undefined;
export const usingPostgres = testDatabaseUrl !== undefined;

export interface TestDatabase {
  /** postgres:// URL of the new database; undefined on PGlite. */
  url: string | undefined;
  handle: DatabaseHandle;
  drop(): Promise<void>;
}

/** Creates an empty database on the test server and returns its URL (PostgreSQL only). */
export async function createEmptyPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (!testDatabaseUrl) throw new Error("TEST_DATABASE_URL is not set");
  const name = `t_${crypto.randomUUID().replace(/-/g, "").slice(0, 16)}`;
  const admin = postgres(testDatabaseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  await admin.end();
  const url = new URL(testDatabaseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const a = postgres(testDatabaseUrl as string, { max: 1, onnotice: () => {} });
      await a.unsafe(`drop database if exists "${name}" with (force)`);
      await a.end();
    },
  };
}

export async function freshDatabase(): Promise<TestDatabase> {
  if (usingPostgres) {
    const empty = await createEmptyPostgresDatabase();
    const handle = await openDatabase({ url: empty.url, maxConnections: 5 });
    await migrate(handle.db);
    return {
      url: empty.url,
      handle,
      async drop() {
        await handle.close();
        await empty.drop();
      },
    };
  }
  const handle = await openDatabase({ pgliteDir: "memory://" });
  await migrate(handle.db);
  return { url: undefined, handle, drop: () => handle.close() };
}
