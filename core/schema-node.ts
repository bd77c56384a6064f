// A JSON Schema as the platform reads one it did not write itself (TypeBox's, Elysia's, a client's): the
// keywords it looks at, each still to be checked (a client may write `"minimum": "5"`).

import { isObjectLike } from "./json.ts";

export interface SchemaNode {
  readonly type?: unknown;
  readonly format?: unknown;
  readonly pattern?: unknown;
  readonly const?: unknown;
  readonly enum?: unknown;
  readonly anyOf?: unknown;
  readonly minimum?: unknown;
  readonly maximum?: unknown;
  readonly exclusiveMinimum?: unknown;
  readonly exclusiveMaximum?: unknown;
  readonly minLength?: unknown;
  readonly maxLength?: unknown;
  readonly minItems?: unknown;
  readonly maxItems?: unknown;
  readonly properties?: unknown;
  readonly items?: unknown;
  readonly default?: unknown;
}

/** Any object but an array is a schema node: every keyword is optional and each is checked where read. */
export function isSchemaNode(value: unknown): value is SchemaNode {
  return isObjectLike(value);
}

/** A numeric keyword's value, or undefined when it is absent or not a number. */
export const numberKeyword = (value: unknown): number | undefined =>
  typeof value === "number" ? value : undefined;
