// Ids in paths and bodies are UUIDs; anything else cannot name a record, so it is "not found"
// (and never reaches PostgreSQL, which would reject it with an error of its own).
import { notFound } from "./errors.ts";

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string) => uuidPattern.test(value);

export function uuidOr404(value: string, what: string): string {
  if (!isUuid(value)) throw notFound(what);
  return value.toLowerCase();
}
