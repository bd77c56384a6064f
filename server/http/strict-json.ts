// Elysia's `t.Integer`, `t.Numeric` and `t.BooleanString` are unions that also accept a string and
// decode it ("5" -> 5): right for query strings and path parameters, where everything is text, wrong
// for a JSON body, where `"max_tokens": "5"` is a mistake the OpenAI API refuses. The gateway passes
// every JSON body and response schema through `strictJson`, which keeps only the union's typed
// member, and the OpenAPI document through the same walk, so integers are documented as integers.
import { OptionalKind, ReadonlyKind, type TSchema } from "@sinclair/typebox";

type Schema = Record<string | symbol, unknown>;

const coercedFormats = new Set(["integer", "numeric", "boolean"]);

/** Any object is a schema here: its keywords, and TypeBox's symbol-keyed modifiers, are read one by one. */
const isSchema = (value: unknown): value is Schema => typeof value === "object" && value !== null;

const isCoercingText = (member: unknown): boolean =>
  isSchema(member) &&
  member.type === "string" &&
  typeof member.format === "string" &&
  coercedFormats.has(member.format);

/** The typed member of an Elysia coercing union, or undefined when `schema` is not one. */
function typedMember(schema: Schema): Schema | undefined {
  const members = schema.anyOf;
  if (!Array.isArray(members) || members.length !== 2) return undefined;
  const text = members.findIndex(isCoercingText);
  if (text < 0) return undefined;
  const typed: unknown = members[1 - text];
  return isSchema(typed) ? typed : undefined;
}

function walk(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(walk);
  if (!isSchema(value)) return value;
  const schema = value;
  const member = typedMember(schema);
  if (member) {
    // The modifiers sit on the union (t.Optional(t.Integer())); they must stay on what replaces it.
    const kept: Schema = {};
    const modifiers: symbol[] = [OptionalKind, ReadonlyKind];
    for (const key of modifiers) if (key in schema) kept[key] = schema[key];
    const typed = walk(member);
    return { ...(isSchema(typed) ? typed : {}), ...kept };
  }
  const out: Schema = {};
  for (const key of Reflect.ownKeys(schema))
    out[key] = typeof key === "symbol" ? schema[key] : walk(schema[key]);
  return out;
}

/** `schema` without Elysia's string-to-number and string-to-boolean coercions, anywhere inside it. */
export function strictJson<T extends TSchema>(schema: T): T {
  return walk(schema) as T;
}

/** The same walk over plain JSON Schema (the OpenAPI document). */
export const withoutCoercion = (document: unknown): unknown => walk(document);

/** A multipart body (files) keeps Elysia's form coercions: every form field arrives as text. */
export function isMultipart(schema: unknown): boolean {
  const json = JSON.stringify(schema) ?? "";
  return json.includes('"format":"binary"');
}
