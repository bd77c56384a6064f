// One database handle for the whole process: PostgreSQL through postgres.js when DATABASE_URL is set,
// embedded PGlite under DATA_DIR otherwise. Both speak the same SQL, so services see one type.

import type { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import type { LogFields } from "#core/logger.ts";
import { PGliteRemote } from "./pglite-remote.ts";
import { defaultResilience, type ResilienceOptions, resilientPostgres } from "./resilient-postgres.ts";
import * as schema from "./schema/index.ts";

export type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
/** The handle a transaction callback receives; services accept either. */
export type Executor = Parameters<Parameters<Database["transaction"]>[0]>[0] | Database;

export interface DatabaseHandle {
  db: Database;
  kind: "postgres" | "pglite";
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** postgres:// URL; unset means PGlite. */
  url?: string | undefined;
  /** PGlite data directory, or "memory://" for a throw-away database. */
  pgliteDir?: string;
  /** Connections in the postgres.js pool. */
  maxConnections?: number;
  /** Time limits of the PostgreSQL pool (db/resilient-postgres.ts). */
  resilience?: ResilienceOptions | undefined;
  /** Where the pool reports a database lost and found again, and a pool replaced. */
  log?: { warn(message: string, details?: LogFields): void } | undefined;
}

export async function openDatabase(options: OpenOptions): Promise<DatabaseHandle> {
  if (options.url) return openPostgres(options.url, options.maxConnections ?? 10, options);
  return openPglite(options.pgliteDir ?? "memory://");
}

function openPostgres(url: string, max: number, options: OpenOptions): DatabaseHandle {
  // A database that went away costs errors on the queries that needed it, answered 503 by the gateways
  // (db/unreachable.ts) while cached contexts keep serving; never a hang or the process
  // (db/resilient-postgres.ts).
  const pool = resilientPostgres(url, max, options.resilience ?? defaultResilience, (event, details) =>
    options.log?.warn(event, details),
  );
  const client = pool.client;
  const db = drizzlePostgres({ client, schema }) as unknown as Database;
  return {
    db,
    kind: "postgres",
    ping: async () => {
      await client`select 1`;
    },
    close: () => pool.end(5),
  };
}

/**
 * PGLITE_SHARED_BUFFERS (PostgreSQL's syntax, e.g. 64MB) overrides the embedded default of 16 MB: PostgreSQL's
 * default 128 MB live in PGlite's WebAssembly heap, which never shrinks; under load they filled and held the
 * process at 440-590 MB. 16 MB keeps the hot pages (the files are the operating system's to cache).
 */
const requestedSharedBuffers = process.env.PGLITE_SHARED_BUFFERS ?? "";
const pgliteSharedBuffers = /^\d+(kB|MB|GB)$/.test(requestedSharedBuffers) ? requestedSharedBuffers : "16MB";

/** PGlite runs in a worker of its own (db/pglite-remote.ts); drizzle drives it as it drove PGlite. */
async function openPglite(dir: string): Promise<DatabaseHandle> {
  const client = await PGliteRemote.open(dir, pgliteSharedBuffers);
  // The remote has the part of PGlite's interface that drizzle's pglite driver calls.
  const db = drizzlePglite({ client: client as unknown as PGlite, schema }) as unknown as Database;
  return {
    db,
    kind: "pglite",
    ping: async () => {
      await db.execute(sql`select 1`);
    },
    close: () => client.close(),
  };
}
