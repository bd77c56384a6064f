// The main thread's handle on an embedded database whose PGlite runs in a Bun Worker (db/pglite-worker.ts).
// In-thread, PGlite's WebAssembly ran on the event loop: a log or usage batch held every request for
// milliseconds (sequential p99 added latency ~10 ms), and about 30 % of the embedded platform's CPU under
// load was PGlite on the one thread. This class has the part of PGlite's interface that drizzle's pglite
// driver and db/prepared.ts call (query, transaction, execProtocol, runExclusive, dumpDataDir, close);
// each call is one message, and the worker makes the same call on the real PGlite, whose mutexes order
// them as before. Results, errors (DatabaseError with its code) and parameters (Date, Uint8Array,
// bigint) cross by structured clone; parsers cannot, so only the keep-as-text ones drizzle passes do.
import { fileURLToPath } from "node:url";
import { type PGlite, protocol, type QueryOptions, type Results, type RowMode } from "@electric-sql/pglite";

type Compression = Parameters<PGlite["dumpDataDir"]>[0];

export type Request = { id: number } & (
  | { op: "open"; dir: string; sharedBuffers: string; wasmModule: WebAssembly.Module }
  | {
      op: "query";
      sql: string;
      params: unknown[] | undefined;
      rowMode: RowMode | undefined;
      textTypes: number[] | undefined;
      paramTypes: number[] | undefined;
      tx: number | undefined;
    }
  | { op: "exec"; sql: string; textTypes: number[] | undefined; tx: number | undefined }
  | { op: "begin"; tx: number }
  | { op: "rollback"; tx: number }
  | { op: "lock"; lock: number }
  | { op: "end"; section: number; failed: boolean }
  | { op: "protocol"; message: Uint8Array; options: { syncToFs?: boolean; throwOnError?: boolean } }
  | { op: "dump"; compression: Compression }
  | { op: "close" }
);

/** A DatabaseError's own fields, as they cross (its stack stays in the worker). */
export type DatabaseErrorFields = Omit<
  InstanceType<typeof protocol.messages.DatabaseError>,
  "stack" | "message"
>;

/** A DatabaseError from PostgreSQL (rebuilt as one, with its code), or any other error. */
export type WireError =
  | { database: true; message: string; fields: DatabaseErrorFields }
  | { database: false; message: string; fields: { name?: string; code?: unknown } };

export type Reply = { id: number } & ({ ok: true; value: unknown } | { ok: false; error: WireError });

type Body<T> = T extends { op: infer _ } ? Omit<T, "id"> : never;

/** Parsers that cross are the ones that return PostgreSQL's text unchanged; the worker rebuilds them. */
function textTypesOf(options: QueryOptions | undefined): number[] | undefined {
  if (options?.serializers || options?.blob || options?.onNotice)
    throw new Error("PGlite in a worker: serializers, blob and onNotice cannot cross to the worker");
  if (!options?.parsers) return undefined;
  const probe = "\u0000text";
  return Object.entries(options.parsers).map(([type, parse]) => {
    if (parse(probe, Number(type)) !== probe)
      throw new Error(`PGlite in a worker: only keep-as-text parsers can cross (type ${type})`);
    return Number(type);
  });
}

function rebuildError(wire: WireError, options?: QueryOptions): Error {
  if (!wire.database) return Object.assign(new Error(wire.message), wire.fields);
  const error = new protocol.messages.DatabaseError(wire.message, wire.fields.length, wire.fields.name);
  return Object.assign(error, wire.fields, { queryOptions: options });
}

let compiled: Promise<WebAssembly.Module> | undefined;
/**
 * PGlite's WebAssembly, compiled once per process and handed to every worker: in-thread PGlite caches the
 * compiled module, a fresh worker would compile it again (0.5-1 s more per database opened, under load).
 */
function pgliteModule(): Promise<WebAssembly.Module> {
  compiled ??= Bun.file(fileURLToPath(import.meta.resolve("@electric-sql/pglite/pglite.wasm")))
    .arrayBuffer()
    .then((bytes) => WebAssembly.compile(bytes));
  return compiled;
}

export class PGliteRemote {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve(value: unknown): void; reject(error: WireError): void }>();
  #nextId = 0;
  #closing: Promise<void> | undefined;
  #gone: Error | undefined;
  readonly #exited: Promise<void>;

  private constructor() {
    this.#worker = new Worker(new URL("./pglite-worker.ts", import.meta.url).href);
    // Like an in-thread PGlite, an idle database does not keep the process alive; a call in flight does.
    this.#keepAlive(false);
    this.#worker.onmessage = (event: MessageEvent<Reply>) => {
      const reply = event.data;
      const call = this.#pending.get(reply.id);
      if (!call) return;
      this.#settled(reply.id);
      if (reply.ok) call.resolve(reply.value);
      else call.reject(reply.error);
    };
    this.#exited = new Promise((resolve) => {
      this.#worker.addEventListener("close", () => {
        // A worker that died (not closed by us) fails every call still waiting, as a lost connection would.
        this.#gone ??= Object.assign(new Error("PGlite worker stopped"), { code: "CONNECTION_ENDED" });
        for (const [id, call] of this.#pending) {
          this.#settled(id);
          call.reject({ database: false, message: this.#gone.message, fields: { code: "CONNECTION_ENDED" } });
        }
        resolve();
      });
    });
  }

  /** Starts the worker and opens the database in it (from the template when it is new). */
  static async open(dir: string, sharedBuffers: string): Promise<PGliteRemote> {
    const remote = new PGliteRemote();
    try {
      await remote.#call({ op: "open", dir, sharedBuffers, wasmModule: await pgliteModule() });
    } catch (error) {
      remote.#worker.terminate();
      await remote.#exited;
      throw error;
    }
    return remote;
  }

  #keepAlive(on: boolean): void {
    // lib.dom's Worker type hides Bun's ref() and unref().
    const worker = this.#worker as unknown as Bun.Worker;
    if (on) worker.ref();
    else worker.unref();
  }

  #settled(id: number): void {
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#keepAlive(false);
  }

  #call(body: Body<Request>, options?: QueryOptions): Promise<unknown> {
    if (this.#gone) return Promise.reject(this.#gone);
    const id = ++this.#nextId;
    return new Promise((resolve, reject) => {
      if (this.#pending.size === 0) this.#keepAlive(true);
      this.#pending.set(id, { resolve, reject: (wire) => reject(rebuildError(wire, options)) });
      this.#worker.postMessage({ ...body, id } as Request);
    });
  }

  #query<T>(sql: string, params: unknown[] | undefined, options: QueryOptions | undefined, tx?: number) {
    return this.#call(
      {
        op: "query",
        sql,
        params,
        rowMode: options?.rowMode,
        textTypes: textTypesOf(options),
        paramTypes: options?.paramTypes,
        tx,
      },
      options,
    ) as Promise<Results<T>>;
  }

  #exec(sql: string, options: QueryOptions | undefined, tx?: number) {
    return this.#call({ op: "exec", sql, textTypes: textTypesOf(options), tx }, options) as Promise<
      Results[]
    >;
  }

  query<T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    return this.#query<T>(sql, params, options);
  }

  exec(sql: string, options?: QueryOptions): Promise<Results[]> {
    return this.#exec(sql, options);
  }

  /** PGlite's transaction: the worker holds its mutex while `callback` runs here. */
  async transaction<T>(callback: (tx: RemoteTransaction) => Promise<T>): Promise<T> {
    const id = ++this.#nextId;
    await this.#call({ op: "begin", tx: id });
    let closed = false;
    const tx: RemoteTransaction = {
      query: (sql, params, options) => this.#query(sql, params, options, id),
      exec: (sql, options) => this.#exec(sql, options, id),
      rollback: async () => {
        await this.#call({ op: "rollback", tx: id });
        closed = true;
      },
      get closed() {
        return closed;
      },
    };
    let result: T;
    try {
      result = await callback(tx);
    } catch (error) {
      closed = true;
      await this.#call({ op: "end", section: id, failed: true });
      throw error;
    }
    closed = true;
    await this.#call({ op: "end", section: id, failed: false });
    return result;
  }

  /** PGlite's runExclusive: the worker holds its query mutex while `fn` runs here. */
  async runExclusive<T>(fn: () => Promise<T>): Promise<T> {
    const id = ++this.#nextId;
    await this.#call({ op: "lock", lock: id });
    try {
      return await fn();
    } finally {
      await this.#call({ op: "end", section: id, failed: false });
    }
  }

  execProtocol(
    message: Uint8Array,
    options: { syncToFs?: boolean; throwOnError?: boolean } = {},
  ): ReturnType<PGlite["execProtocol"]> {
    return this.#call({ op: "protocol", message, options }) as ReturnType<PGlite["execProtocol"]>;
  }

  async dumpDataDir(compression?: Compression): Promise<File> {
    const dump = (await this.#call({ op: "dump", compression })) as {
      bytes: ArrayBuffer;
      type: string;
      name: string;
    };
    return new File([dump.bytes], dump.name, { type: dump.type });
  }

  get closed(): boolean {
    return this.#gone !== undefined;
  }

  /** Closes the database (after open transactions end), then ends the worker's thread. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      try {
        await this.#call({ op: "close" });
      } finally {
        this.#gone = new Error("PGlite is closed");
        this.#worker.terminate();
        await this.#exited;
      }
    })();
    return this.#closing;
  }
}

export type RemoteTransaction = {
  query<T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
  exec(sql: string, options?: QueryOptions): Promise<Results[]>;
  rollback(): Promise<void>;
  readonly closed: boolean;
};
