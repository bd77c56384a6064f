// What every gateway checks of a request before a handler sees it (docs/security.md, input limits):
// the body's size (413, also for bodies sent without a Content-Length), the nesting depth of a JSON body
// (a 50,000-deep array overflowed the stack of JSON.stringify further on), and control characters in
// strings and keys of the body, the query and the path. NUL is refused everywhere (PostgreSQL text and
// jsonb cannot hold it); the other C0 controls but tab, line feed and carriage return are refused too,
// except in the bodies of routes that carry free text (prompts, documents, model output). Everywhere,
// strings must be well-formed UTF-16 (an unpaired surrogate such as "a\ud800b" is no Unicode text, and
// PostgreSQL refused it with a 500), and numbers that are integers must be exact (beyond ±2^53, as
// 9007199254740993, JSON.parse has already rounded them: the value read is not the value sent).
import { AppError } from "#core/errors.ts";

/** Levels of arrays and objects a JSON body may nest. */
export const maxJsonDepth = 64;

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const anyControl = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding NUL is the point.
const nul = /\u0000/;

export type TextRule = "strict" | "free";

const controlProblem = (field: string, rule: TextRule) =>
  new AppError("validation_error", `${field}: contains a control character`, {
    fields: [
      {
        field,
        message:
          rule === "free"
            ? "contains a NUL character"
            : "contains a control character (only tab, line feed and carriage return are allowed)",
      },
    ],
  });

const notUnicode = (field: string) =>
  new AppError("validation_error", `${field}: contains an unpaired surrogate (not valid Unicode)`, {
    fields: [{ field, message: "contains an unpaired surrogate (not valid Unicode)" }],
  });

const inexact = (field: string) =>
  new AppError("validation_error", `${field}: an integer beyond ±2^53 cannot be represented exactly`, {
    fields: [{ field, message: "an integer beyond ±2^53 cannot be represented exactly" }],
  });

declare global {
  interface String {
    /** ES2024's String.prototype.isWellFormed (Bun has it; the ES2023 lib of tsconfig does not name it). */
    isWellFormed(): boolean;
  }
}

const wellFormed = (s: string): boolean => s.isWellFormed();

const tooDeep = () =>
  new AppError("validation_error", `body: JSON nested deeper than ${maxJsonDepth} levels`, {
    fields: [{ field: "body", message: `nested deeper than ${maxJsonDepth} levels` }],
  });

export const tooLarge = (limit: number) =>
  new AppError("payload_too_large", `request body over ${limit} bytes`);

/**
 * Walks a parsed JSON value once: each node's depth, every key and string. The walk stops at the
 * depth limit, so a deep value cannot overflow its recursion; a node's place is spelled only when it
 * is refused (this runs on every request body). `prefix` names where the value sits ("query.").
 */
export function checkJsonValue(value: unknown, rule: TextRule, prefix = "", depthLimit = maxJsonDepth): void {
  const pattern = rule === "free" ? nul : anyControl;
  const keys: string[] = [];
  const place = (...last: string[]) => `${prefix}${[...keys, ...last].join(".")}`;
  // Children are visited last first, the order this walk has always refused in.
  const visit = (v: unknown, depth: number): void => {
    if (typeof v === "string") {
      if (pattern.test(v)) throw controlProblem(keys.length > 0 ? place() : `${prefix}body`, rule);
      if (!wellFormed(v)) throw notUnicode(keys.length > 0 ? place() : `${prefix}body`);
      return;
    }
    if (typeof v === "number") {
      if (Number.isInteger(v) && !Number.isSafeInteger(v))
        throw inexact(keys.length > 0 ? place() : `${prefix}body`);
      return;
    }
    if (v === null || typeof v !== "object") return;
    if (depth >= depthLimit) throw tooDeep();
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        keys.push(String(i));
        visit(v[i], depth + 1);
        keys.pop();
      }
      return;
    }
    const entries: [string, unknown][] = Object.entries(v);
    for (const [key] of entries) {
      if (pattern.test(key)) throw controlProblem(place(key.replace(anyControl, "?")), rule);
      if (!wellFormed(key)) throw notUnicode(place("?"));
    }
    for (const [key, child] of entries.toReversed()) {
      keys.push(key);
      visit(child, depth + 1);
      keys.pop();
    }
  };
  visit(value, 0);
}

/** Query and path parameters are never free text. */
export function checkParameters(values: unknown, prefix: "query." | "params."): void {
  if (values) checkJsonValue(values, "strict", prefix);
}

/**
 * How long a request's body may take to arrive: 10 s, and one second more for each MiB its route allows
 * past the first (a 16 MiB upload gets 25 s). Bytes trickling in do not extend it, so a client sending
 * one byte a second holds a connection for 10 s, not for as long as it likes.
 */
export function bodyDeadlineMs(limit: number): number {
  const mib = 1024 * 1024;
  return 10_000 + Math.max(0, Math.ceil((limit - mib) / mib)) * 1000;
}

export const bodyTimedOut = (deadlineMs: number) =>
  new AppError("request_timeout", `the request body did not arrive within ${deadlineMs / 1000} s`);

/**
 * The body's bytes, refused (413) as soon as they pass `limit`, and (408) when they have not all
 * arrived by `deadlineMs` (bodyDeadlineMs).
 */
export async function readLimited(
  request: Request,
  limit: number,
  deadlineMs = bodyDeadlineMs(limit),
): Promise<Uint8Array<ArrayBuffer>> {
  if (!request.body) return new Uint8Array();
  // A declared length (already checked against the limit, and held to by Bun): the bytes in one
  // native read, without a JavaScript reader and a race per chunk (issue #34: every request pays it).
  if (request.headers.get("content-length") !== null) return readDeclared(request, limit, deadlineMs);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<"expired">((resolve) => {
    timer = setTimeout(() => resolve("expired"), deadlineMs);
  });
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), expired]);
      if (next === "expired") {
        await reader.cancel().catch(() => {});
        throw bodyTimedOut(deadlineMs);
      }
      const { value, done } = next;
      if (done) break;
      total += value.byteLength;
      if (total > limit) {
        await reader.cancel().catch(() => {});
        throw tooLarge(limit);
      }
      chunks.push(value);
    }
  } finally {
    clearTimeout(timer);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** The whole body of a request that declared its length, within the deadline and the limit. */
async function readDeclared(
  request: Request,
  limit: number,
  deadlineMs: number,
): Promise<Uint8Array<ArrayBuffer>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<"expired">((resolve) => {
    timer = setTimeout(() => resolve("expired"), deadlineMs);
  });
  try {
    const read = await Promise.race([request.bytes(), expired]);
    if (read === "expired") throw bodyTimedOut(deadlineMs);
    if (read.byteLength > limit) throw tooLarge(limit);
    return read;
  } finally {
    clearTimeout(timer);
  }
}
