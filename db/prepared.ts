// Statements run again and again with new parameters (the log batches, the usage batches) are planned
// once. On PostgreSQL postgres.js already prepares every statement by its text. PGlite's query() parses
// and plans each call anew (an unnamed statement), and planning the batch statements (a CTE of five
// inserts and upserts) cost about 4 ms of WebAssembly on the event loop per call, whatever the batch's
// size. Here a statement is parsed once per PGlite instance under a name of its own, then only bound
// and executed: PostgreSQL keeps its plan (a generic one after five runs). PGlite runs in a worker
// (db/pglite-remote.ts); these calls are PGlite's own, made there.
import { protocol } from "@electric-sql/pglite";
import type { SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { Executor } from "./client.ts";
import { rowsOf } from "./migrate.ts";
import { PGliteRemote } from "./pglite-remote.ts";

const dialect = new PgDialect();
/** Per PGlite instance: the name each statement text was prepared under. */
const prepared = new WeakMap<PGliteRemote, Map<string, string>>();

const concat = (parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
};

/**
 * Runs a statement whose parameters are all strings (or null) and returns its rows, every value as
 * PostgreSQL's text (or null). On PGlite it is prepared the first time its text is seen and run in a
 * transaction of its own (so it waits for, and never runs inside, another caller's transaction);
 * elsewhere it is `db.execute`.
 */
export async function executePrepared(db: Executor, statement: SQL): Promise<Record<string, unknown>[]> {
  const client = (db as { $client?: unknown }).$client;
  const query = dialect.sqlToQuery(statement);
  const strings = query.params.every((p) => p === null || typeof p === "string");
  if (!(client instanceof PGliteRemote) || !strings) return rowsOf(await db.execute(statement));
  const names = namesOf(client);
  return client.transaction(() =>
    client.runExclusive(async () => {
      // Looked up and named inside the exclusive section: two statements first seen at once (the first
      // log batch and the first usage batch) would otherwise both take the next name, and the second
      // Parse fail with "prepared statement … already exists".
      const known = names.get(query.sql);
      const name = known ?? `llmp_prepared_${names.size + 1}`;
      if (!known) {
        await client.execProtocol(
          concat([protocol.serialize.parse({ name, text: query.sql }), protocol.serialize.sync()]),
          {
            syncToFs: false,
          },
        );
        names.set(query.sql, name);
      }
      const { messages } = await client.execProtocol(
        concat([
          protocol.serialize.bind({ statement: name, values: query.params as (string | null)[] }),
          protocol.serialize.describe({ type: "P" }),
          protocol.serialize.execute({}),
          protocol.serialize.sync(),
        ]),
        { syncToFs: false },
      );
      return rowsFrom(messages);
    }),
  );
}

function namesOf(client: PGliteRemote): Map<string, string> {
  let names = prepared.get(client);
  if (!names) {
    names = new Map();
    prepared.set(client, names);
  }
  return names;
}

/** The rows of a bound statement's messages, keyed by column name; values as text. */
function rowsFrom(messages: { name: string }[]): Record<string, unknown>[] {
  let columns: string[] = [];
  const rows: Record<string, unknown>[] = [];
  for (const message of messages) {
    if (message.name === "rowDescription")
      columns = (message as InstanceType<typeof protocol.messages.RowDescriptionMessage>).fields.map(
        (f) => f.name,
      );
    else if (message.name === "dataRow") {
      const fields = (message as InstanceType<typeof protocol.messages.DataRowMessage>).fields;
      rows.push(Object.fromEntries(columns.map((c, i) => [c, fields[i] ?? null])));
    }
  }
  return rows;
}
