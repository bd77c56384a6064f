// A JSON value as the type system knows it: what JSON.parse gives back and JSON.stringify writes whole.

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** An object member of a JSON value (not an array, not null), or undefined. */
export function objectIn(value: JsonValue | undefined): JsonObject | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined;
}
