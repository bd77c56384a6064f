// A fresh, migrated database for one test file: a new database on the PostgreSQL of TEST_DATABASE_URL
// when it is set (CI: the real server), otherwise PGlite in a temporary directory (a copy of one
// migrated cluster: data-dir.ts). Same code, same SQL.
import { rmSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { type DatabaseHandle, openDatabase } from "#db/client.ts";
import { migrate } from "#db/migrate.ts";
import { migratedDataDir, migrationSetHash, pgdata } from "./data-dir.ts";

export const testDatabaseUrl = process.env.TEST_DATABASE_URL || undefined;
export const usingPostgres = testDatabaseUrl !== undefined;

export interface TestDatabase {
  /** postgres:// URL of the new database; undefined on PGlite. */
  url: string | undefined;
  handle: DatabaseHandle;
  drop(): Promise<void>;
}

/**
 * Creates a database on the test server, empty or a copy of `template`, and returns its URL
 * (PostgreSQL only).
 */
export async function createEmptyPostgresDatabase(
  template?: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  if (!testDatabaseUrl) throw new Error("TEST_DATABASE_URL is not set");
  const name = randomName();
  const admin = postgres(testDatabaseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"${template ? ` template "${template}"` : ""}`);
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

/** A name for the test server's database: `t_` and 16 random hex digits. */
const randomName = () => `t_${crypto.randomUUID().replace(/-/g, "").slice(0, 16)}`;

/** The migrated template's name on the test server. */
const templateName = () => `t_template_${migrationSetHash()}`;

/** Any constant: the lock the test processes of one run take to make the template once. */
const templateLockKey = 0x6c6c6d7074706cn;
let template: Promise<string> | undefined;

/**
 * A migrated database to copy (PostgreSQL's `create database ... template`, about 0.3 s against 1.5 s
 * for the twelve migrations on a loaded 2-core machine): made once per migration set, by the first
 * test process to need it (the others wait on an advisory lock), under a temporary name renamed
 * when complete, so a run stopped half-way never leaves a half-migrated template.
 */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const name = templateName();
    const admin = postgres(testDatabaseUrl as string, { max: 1, onnotice: () => {} });
    try {
      await admin`select pg_advisory_lock(${templateLockKey.toString()}::bigint)`;
      const [found] = await admin`select 1 from pg_database where datname = ${name}`;
      if (!found) {
        const building = randomName();
        await admin.unsafe(`create database "${building}"`);
        const url = new URL(testDatabaseUrl as string);
        url.pathname = `/${building}`;
        const handle = await openDatabase({ url: url.toString(), maxConnections: 1 });
        await migrate(handle.db);
        await handle.close();
        await admin.unsafe(`alter database "${building}" rename to "${name}"`);
      }
      await admin`select pg_advisory_unlock(${templateLockKey.toString()}::bigint)`;
      return name;
    } finally {
      await admin.end();
    }
  })();
  return template;
}

export async function freshDatabase(): Promise<TestDatabase> {
  if (usingPostgres) {
    const empty = await createEmptyPostgresDatabase(await migratedTemplate());
    const handle = await openDatabase({ url: empty.url, maxConnections: 5 });
    return {
      url: empty.url,
      handle,
      async drop() {
        await handle.close();
        await empty.drop();
      },
    };
  }
  // A copy of the migrated cluster the platform's tests start on (data-dir.ts): 0.8 s of CPU where an
  // in-memory database migrated from zero cost 2.4 s.
  const dir = await migratedDataDir("llmp-pglite-");
  const handle = await openDatabase({ pgliteDir: join(dir, pgdata) });
  return {
    url: undefined,
    handle,
    async drop() {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
