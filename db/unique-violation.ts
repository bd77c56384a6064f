// PostgreSQL's constraint errors, from postgres.js or PGlite, however drizzle wraps them.
import { causeChain, propertyOf } from "#core/error-chain.ts";

function hasCode(error: unknown, code: string): boolean {
  return causeChain(error).some((e) => propertyOf(e, "code") === code);
}

/** unique_violation (23505). */
export const isUniqueViolation = (error: unknown): boolean => hasCode(error, "23505");

/** foreign_key_violation (23503): a row names another that does not exist. */
export const isForeignKeyViolation = (error: unknown): boolean => hasCode(error, "23503");
