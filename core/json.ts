// A JSON value as the type system knows it: what JSON.parse gives back and JSON.stringify writes whole.

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** An object member of a JSON value (not an array, not null), or undefined. */
export function objectIn(value: JsonValue | undefined): JsonObject | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined;
}

/** An object that is neither an array nor null (parsed JSON, a schema, a body): its members still to be checked. */
export function isObjectLike(value: unknown): value is { [key: string]: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
