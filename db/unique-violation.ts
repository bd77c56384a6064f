// PostgreSQL's constraint errors, from postgres.js or PGlite, however drizzle wraps them.
function hasCode(error: unknown, code: string): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 4; depth++) {
    if ((e as { code?: unknown }).code === code) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** unique_violation (23505). */
export const isUniqueViolation = (error: unknown): boolean => hasCode(error, "23505");

/** foreign_key_violation (23503): a row names another that does not exist. */
export const isForeignKeyViolation = (error: unknown): boolean => hasCode(error, "23503");
