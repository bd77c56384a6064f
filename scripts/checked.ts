// Checked reads for the benches and scripts, in place of `as` casts. With noUncheckedIndexedAccess an
// index or a capture group types as `T | undefined` even where the caller knows it is there, and
// JSON.parse gives `unknown`-ish `any`: these check instead of asserting, so a wrong index, a missing
// group or a file in another shape fails here, by name, rather than as an `undefined` further on.
import type { Static, TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { Value } from "@sinclair/typebox/value";

/** `list[index]`, which must be there. Also reads a capture group of a RegExp match. */
export function at<T>(list: ArrayLike<T>, index: number): T {
  const value = list[index];
  if (value === undefined) throw new RangeError(`nothing at index ${index} (length ${list.length})`);
  return value;
}

/** `value` when it has the shape of `schema`; an error naming the first field that does not. */
export function checked<S extends TSchema>(schema: S, value: unknown, what = "value"): Static<S> {
  if (Value.Check(schema, value)) return value;
  const first = Value.Errors(schema, value).First();
  throw new TypeError(`${what}: ${first ? `${first.path || "/"} ${first.message}` : "unexpected shape"}`);
}

/** JSON text parsed and checked against `schema`. */
export function parseJson<S extends TSchema>(schema: S, text: string, what = "JSON"): Static<S> {
  return checked(schema, JSON.parse(text), what);
}

/** A parser for many texts of one shape (stream chunks, log lines): the check compiled once. */
export function jsonParser<S extends TSchema>(schema: S, what = "JSON"): (text: string) => Static<S> {
  const check = TypeCompiler.Compile(schema);
  return (text) => {
    const value: unknown = JSON.parse(text);
    if (check.Check(value)) return value;
    const first = check.Errors(value).First();
    throw new TypeError(`${what}: ${first ? `${first.path || "/"} ${first.message}` : "unexpected shape"}`);
  };
}
