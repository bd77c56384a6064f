// postgres.js behind a guard, so that a database that goes away costs errors on the queries that
// needed it and never the process, a hang, or a pool that stays broken:
// - Statement time-out (server side, `statement_timeout`) and a client deadline a second past it: a
//   query the server does not answer (a silent partition: TCP open, nothing coming back) fails with
//   QUERY_TIMEOUT instead of waiting forever.
// - The pool is replaced when a query passed its deadline: under connections killed mid-query
//   (pg_terminate_backend, a restart) postgres.js 3.4.9 on Bun was seen leaving a connection wedged
//   in `connecting` with queries attached that never settle (tests/hardening/database-loss.test.ts);
//   ending the old pool rejects them, and the new one connects afresh.
// - While connecting fails (refused, timed out), queries fail at once with DATABASE_UNAVAILABLE and one
//   query at a time, at most every `retryIntervalMs`, tries the database again: a gateway answers its
//   503s at once instead of each request waiting out a connect time-out.
// - postgres.js writing to a socket it already closed (`null is not an object (evaluating
//   'socket.write')`, thrown from a timer, so uncaught) is caught, logged and answered by a new pool
//   instead of ending the process (guardPostgresProcess, installed by the server).
import postgres, { type Sql } from "postgres";
import { codeInChain } from "#core/error-chain.ts";
import type { LogFields } from "#core/logger.ts";
import { isDatabaseUnreachable } from "./unreachable.ts";

export interface ResilienceOptions {
  /** A statement's time limit on the server; the client's deadline is a second more. */
  statementTimeoutMs: number;
  /** How long opening a connection may take. */
  connectTimeoutMs: number;
  /** While the database cannot be reached, how often one query tries it again. */
  retryIntervalMs: number;
}

export const defaultResilience: ResilienceOptions = {
  statementTimeoutMs: 5000,
  connectTimeoutMs: 5000,
  retryIntervalMs: 1000,
};

/** The database cannot be reached now: answered at once, without trying (db/unreachable.ts: a 503). */
export class DatabaseUnavailable extends Error {
  override name = "DatabaseUnavailable";
  constructor(
    message: string,
    readonly code: "DATABASE_UNAVAILABLE" | "QUERY_TIMEOUT",
  ) {
    super(message);
  }
}

/** Connection failures that say the database itself is unreachable (not one connection killed). */
const unreachableCodes = new Set([
  "ECONNREFUSED",
  "CONNECT_TIMEOUT",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "QUERY_TIMEOUT",
  "57P03",
]);

interface Guarded {
  /** `deadline: false`: a transaction, whose length is its caller's (its statements each have theirs). */
  run<T>(work: () => Promise<T>, options?: { deadline: boolean }): Promise<T>;
}

export interface ResilientPostgres {
  /** What drizzle is given: postgres.js's calls that drizzle and the platform make, on the current pool. */
  client: Sql;
  /** Pools replaced since the start (a metric, and what tests look at). */
  readonly replacements: number;
  end(timeoutS: number): Promise<void>;
}

type OnEvent = (event: string, details: LogFields) => void;

export function resilientPostgres(
  url: string,
  max: number,
  options: ResilienceOptions = defaultResilience,
  onEvent: OnEvent = () => {},
): ResilientPostgres {
  const open = () =>
    postgres(url, {
      max,
      onnotice: () => {},
      connect_timeout: options.connectTimeoutMs / 1000,
      // Dead peers are found by the keep-alive within seconds rather than the kernel's two hours.
      keep_alive: 5,
      connection: { statement_timeout: options.statementTimeoutMs },
    });
  const first = open();
  let current = first;
  let replacements = 0;
  let lastReplacement = 0;
  const deadlineMs = options.statementTimeoutMs + 1000;

  const replace = (reason: string) => {
    const now = performance.now();
    if (now - lastReplacement < deadlineMs) return;
    lastReplacement = now;
    replacements++;
    const old = current;
    current = open();
    // drizzle set its type parsers on the first pool (drizzle-orm/postgres-js/driver.js): the same
    // on every pool after it.
    Object.assign(current.options.parsers, first.options.parsers);
    Object.assign(current.options.serializers, first.options.serializers);
    onEvent("database pool replaced", { reason });
    void old.end({ timeout: 0 }).catch(() => {});
  };

  const guarded = createGuard(options, deadlineMs, onEvent, replace);
  const facade = facadeOf(first, () => current, guarded);
  const replaceOnWedge = () => replace("postgres.js wrote to a closed connection");
  onWedged.add(replaceOnWedge);
  return {
    client: facade,
    get replacements() {
      return replacements;
    },
    end: (timeoutS) => {
      onWedged.delete(replaceOnWedge);
      return current.end({ timeout: timeoutS });
    },
  };
}

/**
 * Runs each query under the client deadline; while the database is known unreachable, fails at once
 * but for one probe every `retryIntervalMs`. `replace` is called when a query passed its deadline.
 */
function createGuard(
  options: ResilienceOptions,
  deadlineMs: number,
  onEvent: OnEvent,
  replace: (reason: string) => void,
): Guarded {
  let downSince: number | undefined;
  let probing = false;
  let lastProbe = 0;
  return {
    async run(work, { deadline: bounded } = { deadline: true }) {
      let probe = false;
      if (downSince !== undefined) {
        const now = performance.now();
        if (probing || now - lastProbe < options.retryIntervalMs) {
          throw new DatabaseUnavailable("the database is unreachable", "DATABASE_UNAVAILABLE");
        }
        probing = probe = true;
        lastProbe = now;
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<never>((_, reject) => {
        if (!bounded) return;
        timer = setTimeout(
          () =>
            reject(
              new DatabaseUnavailable(`the database did not answer within ${deadlineMs} ms`, "QUERY_TIMEOUT"),
            ),
          deadlineMs,
        );
      });
      try {
        const result = await Promise.race([work(), deadline]);
        if (downSince !== undefined) {
          onEvent("database reachable again", { down_ms: Math.round(performance.now() - downSince) });
          downSince = undefined;
        }
        return result;
      } catch (error) {
        const code = codeInChain(error);
        if (code === "QUERY_TIMEOUT") replace("a query passed its deadline");
        if (code !== undefined && unreachableCodes.has(code)) {
          if (downSince === undefined) onEvent("database unreachable", { code });
          downSince ??= performance.now();
          lastProbe = performance.now();
        }
        throw error;
      } finally {
        clearTimeout(timer);
        if (probe) probing = false;
      }
    },
  };
}

/** A query's rows, run under the guard when first awaited (as postgres.js runs a query when awaited). */
class PendingRows implements PromiseLike<unknown> {
  #rows: Promise<unknown> | undefined;
  readonly [Symbol.toStringTag] = "PendingRows";

  constructor(
    private readonly start: () => ReturnType<Sql["unsafe"]>,
    private readonly guarded: Guarded,
  ) {}

  #all(): Promise<unknown> {
    this.#rows ??= this.guarded.run(() => Promise.resolve(this.start()));
    return this.#rows;
  }

  // biome-ignore lint/suspicious/noThenProperty: drizzle awaits what unsafe() returns.
  then<A = unknown, B = never>(
    resolve?: ((value: unknown) => A | PromiseLike<A>) | null,
    reject?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#all().then(resolve, reject);
  }

  catch<B = never>(reject?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<unknown> {
    return this.#all().catch(reject);
  }

  finally(done?: (() => void) | null): Promise<unknown> {
    return this.#all().finally(done);
  }

  values(): Promise<unknown> {
    return this.guarded.run(() => Promise.resolve(this.start().values()));
  }
}

/**
 * The calls drizzle makes (unsafe, begin) and the platform's own (reserve: leadership), on whichever
 * pool is current; everything else (options, end) reads through to it.
 */
function facadeOf(first: Sql, current: () => Sql, guarded: Guarded): Sql {
  return new Proxy(first, {
    get(_, property) {
      const pool = current();
      if (property === "unsafe")
        return (
          query: string,
          params?: Parameters<Sql["unsafe"]>[1],
          queryOptions?: Parameters<Sql["unsafe"]>[2],
        ) => new PendingRows(() => current().unsafe(query, params, queryOptions), guarded);
      // A transaction's statements run on the connection it reserved (each under the server's
      // statement time-out); the transaction as a whole may take as long as its caller needs.
      if (property === "begin")
        return (...args: Parameters<Sql["begin"]>) =>
          guarded.run(() => Reflect.apply(current().begin, current(), args), { deadline: false });
      if (property === "reserve") return () => guarded.run(() => current().reserve());
      const value = Reflect.get(pool, property);
      return typeof value === "function" ? value.bind(pool) : value;
    },
    apply(_, thisArg, args) {
      return guarded.run(() => Reflect.apply(current(), thisArg, args));
    },
  });
}

/** Every open pool's way to replace itself, for the process guard. */
const onWedged = new Set<() => void>();
let guarded = false;

/**
 * postgres.js, on Bun, may run a write it scheduled (setImmediate) after its socket closed: a TypeError
 * thrown from a timer, which would end the process. The server (main.ts) installs this guard:
 * that one error, and only it, is taken as a lost connection: logged, and the pools are replaced. Any
 * other uncaught error is reported and ends the process, as without the guard. Not installed by a
 * library user or the test runner, whose own handling of uncaught errors stays as it is.
 */
export function guardPostgresProcess(log: {
  error(message: string, details?: LogFields): void;
  warn(message: string, details?: LogFields): void;
}): void {
  if (guarded) return;
  guarded = true;
  process.on("uncaughtException", (error) => {
    if (isClosedSocketWrite(error)) {
      log.warn("postgres.js wrote to a closed connection; pool replaced", { error: error.message });
      for (const replace of onWedged) replace();
      return;
    }
    log.error("uncaught exception; stopping", { error });
    process.exit(1);
  });
  // A query of a connection killed under it (57P01 from pg_terminate_backend, a reset) was seen
  // rejected with nobody listening, somewhere inside postgres.js, under such kills: the process died of
  // it. Those rejections, and only those, are logged; the query's caller had its error already.
  process.on("unhandledRejection", (reason) => {
    if (isLostConnectionRejection(reason)) {
      log.warn("postgres.js rejected a query of a lost connection with nobody listening", {
        error: reason.message,
      });
      return;
    }
    log.error("unhandled rejection; stopping", { error: reason });
    process.exit(1);
  });
}

/** A postgres.js error (thrown from its own code) that says the connection was lost or killed. */
export function isLostConnectionRejection(reason: unknown): reason is Error {
  return (
    reason instanceof Error &&
    /postgres[\\/](src|cjs)[\\/]/.test(reason.stack ?? "") &&
    isDatabaseUnreachable(reason)
  );
}

export function isClosedSocketWrite(error: unknown): error is Error {
  return (
    error instanceof TypeError &&
    /socket\.write|reading 'write'/.test(error.message) &&
    /postgres[\\/](src|cjs)[\\/].*connection\.js/.test(error.stack ?? "")
  );
}

export { isDatabaseUnreachable };
