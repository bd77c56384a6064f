// What a log line may say of an unexpected error. A failed database statement is named by its SQLSTATE
// code and the server's message only: drizzle's error text carries the statement and its parameters
// (e-mail addresses, key hashes, prompts), which must not reach a log.
import { DrizzleQueryError } from "drizzle-orm";
import { messageOf, propertyOf } from "#core/error-chain.ts";

export function errorFields(error: unknown): { error: string; sqlstate?: string; stack?: string } {
  if (error instanceof DrizzleQueryError) {
    const message = messageOf(error.cause);
    const code = propertyOf(error.cause, "code");
    return {
      error: `database error: ${message ?? "the statement failed"}`,
      ...(typeof code === "string" ? { sqlstate: code } : {}),
    };
  }
  if (error instanceof Error) return { error: `${error.name}: ${error.message}`, stack: error.stack };
  return { error: String(error) };
}

/** Last line of defence for errors logged as text elsewhere: drizzle's statement and parameters withheld. */
export const withoutStatements = (line: string): string =>
  line.includes("Failed query: ")
    ? line.replace(
        /Failed query: (?:[^"\\]|\\.)*?\\nparams: (?:[^"\\]|\\.)*/g,
        "failed query (statement and parameters withheld)",
      )
    : line;
