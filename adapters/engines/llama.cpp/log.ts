// Logs go to stderr as JSON lines: stdout belongs to the parent, which reads the ready or fatal line there.
export type LogLevel = "debug" | "info" | "warn" | "error";

import { withLoggedErrors } from "#core/error-log.ts";
import type { LogFields as Fields } from "#core/logger.ts";

const rank: Record<LogLevel | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export interface Log {
  write(level: LogLevel | "disabled", msg: string, fields?: Fields): void;
  debug(msg: string, fields?: Fields): void;
  info(msg: string, fields?: Fields): void;
  warn(msg: string, fields?: Fields): void;
  error(msg: string, fields?: Fields): void;
}

export function createLog(min: LogLevel | "silent", base: Fields = {}): Log {
  const write: Log["write"] = (level, msg, fields) => {
    if (level === "disabled" || rank[level] < rank[min]) return;
    process.stderr.write(
      `${JSON.stringify({ ts: new Date().toISOString(), level, msg, ...base, ...(fields && withLoggedErrors(fields)) })}\n`,
    );
  };
  return {
    write,
    debug: (msg, fields) => write("debug", msg, fields),
    info: (msg, fields) => write("info", msg, fields),
    warn: (msg, fields) => write("warn", msg, fields),
    error: (msg, fields) => write("error", msg, fields),
  };
}
