// The database went away (refused, dropped or timed-out connections), as opposed to a query it
// refused. postgres.js reports these with its own codes or the socket's errno; drizzle may wrap them.
import { causeChain, propertyOf } from "#core/error-chain.ts";

const connectionCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  // db/resilient-postgres.ts: the database known unreachable (answered at once), or silent too long.
  "DATABASE_UNAVAILABLE",
  "QUERY_TIMEOUT",
  // PostgreSQL itself shutting down or refusing new connections (admin_shutdown, cannot_connect_now…).
  "57P01",
  "57P02",
  "57P03",
]);

export function isDatabaseUnreachable(error: unknown): boolean {
  return causeChain(error).some((e) => {
    const code = propertyOf(e, "code");
    return typeof code === "string" && connectionCodes.has(code);
  });
}
