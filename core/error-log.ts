// What a log line says of an error: its name, message, stack and cause chain, so a failure can be traced
// to where it happened. Nothing else of the error object is copied: drivers hang their query parameters,
// request options or headers on their errors, and those may hold keys, hashes and personal data.

import { propertyOf } from "./error-chain.ts";
import type { LogFields } from "./logger.ts";

export interface LoggedError {
  name: string;
  message: string;
  code?: string | number;
  stack?: string;
  cause?: LoggedError | string;
}

const maxCauses = 4;

export function errorForLog(error: unknown, depth = 0): LoggedError | string {
  if (!(error instanceof Error)) {
    // A thrown non-Error object may be anything (a response, a config): say only what kind it was.
    return typeof error === "object" && error !== null ? "(a non-Error object was thrown)" : String(error);
  }
  const logged: LoggedError = { name: error.name, message: error.message };
  const code = propertyOf(error, "code");
  if (typeof code === "string" || typeof code === "number") logged.code = code;
  if (error.stack) logged.stack = error.stack;
  if (error.cause !== undefined && depth < maxCauses) logged.cause = errorForLog(error.cause, depth + 1);
  return logged;
}

/** The fields of a log line with every Error value replaced by errorForLog's summary of it. */
export function withLoggedErrors(fields: LogFields): LogFields {
  let copy: LogFields | undefined;
  for (const key in fields) {
    if (fields[key] instanceof Error) {
      copy ??= { ...fields };
      copy[key] = errorForLog(fields[key]);
    }
  }
  return copy ?? fields;
}
