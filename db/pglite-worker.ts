// The worker side of db/pglite-remote.ts: the one PGlite of an embedded database, on a thread of its own,
// so its WebAssembly (planning, inserts, WAL) never holds the gateway's event loop. Each message is one
// PGlite call; PGlite's own mutexes still order them, so a query that arrives while another caller's
// transaction is open waits here exactly as it did in-thread. PGliteWorker (@electric-sql/pglite/worker)
// is not used: it elects a leader among browser tabs with navigator.locks, which Bun does not have.
import { PGlite, protocol, type Transaction } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { propertyOf } from "#core/error-chain.ts";
import type { Reply, Request, WireError } from "./pglite-remote.ts";
import { openTemplate, saveTemplate } from "./pglite-template.ts";

declare const self: Worker;

let pg: PGlite | undefined;
/** Open transactions and exclusive sections, by the id the main thread gave them. */
const transactions = new Map<number, Transaction>();
const sections = new Map<number, { release(): void; fail(reason: unknown): void; done: Promise<unknown> }>();
/** The caller's error ended a transaction: PGlite rolls back and rethrows it. */
const callerFailed = Symbol("caller failed");

const keepAsText = (value: string) => value;
const parsersByTypes = new Map<string, Record<number, (value: string) => string>>();
/** drizzle's parsers keep these types as PostgreSQL's text; functions cannot cross, so they are rebuilt. */
function textParsers(types: number[]) {
  const key = types.join(",");
  let parsers = parsersByTypes.get(key);
  if (!parsers) {
    parsers = Object.fromEntries(types.map((t) => [t, keepAsText]));
    parsersByTypes.set(key, parsers);
  }
  return parsers;
}

function wireError(error: unknown): WireError {
  if (error instanceof protocol.messages.DatabaseError) {
    const { stack: _stack, message: _message, ...fields } = error;
    // PGlite hangs the query's options (parsers: functions, which cannot cross) on the error.
    Reflect.deleteProperty(fields, "queryOptions");
    return { database: true, message: error.message, fields };
  }
  const e = error instanceof Error ? error : new Error(String(error));
  return {
    database: false,
    message: e.message,
    fields: { name: e.name, code: propertyOf(e, "code") },
  };
}

function open(dir: string, sharedBuffers: string, wasmModule: WebAssembly.Module): Promise<void> {
  return (async () => {
    const isNew = dir === "memory://" || !(await Bun.file(`${dir}/PG_VERSION`).exists());
    const template = isNew ? await openTemplate() : undefined;
    try {
      pg = await PGlite.create(dir, {
        pgliteWasmModule: wasmModule,
        startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${sharedBuffers}`],
        // pgvector ships with PGlite as an extension: loaded here, created on first use by retrieval.
        extensions: { vector },
        ...(template ? { loadDataDir: template.tar } : {}),
      });
    } finally {
      template?.dispose();
    }
    if (isNew && !template) await saveTemplate(pg);
    // Opening leaves about 100 MB of garbage on this thread's heap (the template's tar and its files,
    // PGlite's file-system bundle), and this heap allocates little afterwards, so no collection would
    // come to free it for a long time: the process stayed that much larger (docs/performance.md,
    // "Memory (#34)").
    Bun.gc(true);
  })();
}

/**
 * Enters PGlite's transaction (or query) mutex and stays inside until the main thread ends the section;
 * resolves once inside. The section's outcome (COMMIT's error, say) is the end message's answer.
 */
function enter(id: number, run: (body: () => Promise<void>) => Promise<unknown>): Promise<void> {
  return new Promise((entered, refused) => {
    let release = () => {};
    let fail: (reason: unknown) => void = () => {};
    const done = run(
      () =>
        new Promise<void>((resolve, reject) => {
          release = resolve;
          fail = reject;
          entered();
        }),
    );
    sections.set(id, { release: () => release(), fail: (reason) => fail(reason), done });
    // Before the body runs (BEGIN failed, the database closed) this refuses the section; after, a no-op.
    done.catch(refused);
  });
}

async function handle(request: Request): Promise<unknown> {
  if (request.op === "open") return open(request.dir, request.sharedBuffers, request.wasmModule);
  if (!pg) throw new Error("PGlite is closed");
  const db = pg;
  const on = (tx: number | undefined) => {
    if (tx === undefined) return db;
    const t = transactions.get(tx);
    if (!t) throw new Error("Transaction is closed");
    return t;
  };
  switch (request.op) {
    case "query":
      return on(request.tx).query(request.sql, request.params, {
        rowMode: request.rowMode,
        ...(request.textTypes ? { parsers: textParsers(request.textTypes) } : {}),
        ...(request.paramTypes ? { paramTypes: request.paramTypes } : {}),
      });
    case "exec":
      return on(request.tx).exec(request.sql, {
        ...(request.textTypes ? { parsers: textParsers(request.textTypes) } : {}),
      });
    case "begin":
      return enter(request.tx, (body) =>
        db.transaction(async (tx) => {
          transactions.set(request.tx, tx);
          try {
            await body();
          } finally {
            transactions.delete(request.tx);
          }
        }),
      );
    case "rollback": {
      const tx = transactions.get(request.tx);
      if (!tx) throw new Error("Transaction is closed");
      return tx.rollback();
    }
    case "lock":
      return enter(request.lock, (body) => db.runExclusive(body));
    case "end": {
      const section = sections.get(request.section);
      if (!section) throw new Error("Transaction is closed");
      sections.delete(request.section);
      if (request.failed) section.fail(callerFailed);
      else section.release();
      try {
        await section.done;
      } catch (error) {
        // The caller's own error ended it (PGlite rolled back): the caller throws that error, not this.
        if (error !== callerFailed) throw error;
      }
      return;
    }
    case "protocol":
      return db.execProtocol(request.message, request.options);
    case "dump": {
      const file = await db.dumpDataDir(request.compression);
      return {
        bytes: await file.arrayBuffer(),
        type: file.type,
        name: file instanceof File ? file.name : "",
      };
    }
    case "close":
      // PGlite waits for open transactions and refuses new calls ("PGlite is closing") meanwhile.
      return db.close();
  }
}

self.onmessage = (event: MessageEvent<Request>) => {
  const { id } = event.data;
  handle(event.data).then(
    (value) => self.postMessage({ id, ok: true, value } satisfies Reply),
    (error: unknown) => self.postMessage({ id, ok: false, error: wireError(error) } satisfies Reply),
  );
};
