// One JSON object a line on stdout: what log collectors ingest without parsing rules.
//
// Lines are gathered and written together a few milliseconds later: one write per request was the
// largest single cost in the gateway's CPU profile under load. Whatever is pending when the process
// exits is written synchronously, so the last lines before a shutdown are never lost.
import { writeSync } from "node:fs";
import { withLoggedErrors } from "#core/error-log.ts";
import type { LogFields, Logger } from "#services/context.ts";
import type { LogLevel } from "./config.ts";
import { withoutStatements } from "./error-fields.ts";

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

const flushAfterMs = 5;
const flushAtBytes = 64 * 1024;
let pending = "";
let timer: ReturnType<typeof setTimeout> | undefined;

function flushLog(): void {
  if (timer) clearTimeout(timer);
  timer = undefined;
  if (pending === "") return;
  const text = pending;
  pending = "";
  process.stdout.write(text);
}

process.on("exit", () => {
  if (pending === "") return;
  try {
    writeSync(1, pending);
  } catch {
    // stdout is gone: nothing left to tell.
  }
  pending = "";
});

function emit(line: string): void {
  pending += `${withoutStatements(line)}\n`;
  if (pending.length >= flushAtBytes) flushLog();
  else timer ??= setTimeout(flushLog, flushAfterMs);
}

export function createLogger(level: LogLevel, base: LogFields = {}): Logger {
  const min = rank[level];
  const write = (lvl: Exclude<LogLevel, "silent">, msg: string, fields?: LogFields) => {
    if (rank[lvl] < min) return;
    // An Error value becomes {name, message, stack, cause} (JSON.stringify would give {}).
    const extra = fields && withLoggedErrors(fields);
    emit(JSON.stringify({ ts: new Date().toISOString(), level: lvl, msg, ...base, ...extra }));
    // Errors go out at once: the process may be about to stop for good.
    if (lvl === "error") flushLog();
  };
  return {
    debug: (msg, fields) => write("debug", msg, fields),
    info: (msg, fields) => write("info", msg, fields),
    warn: (msg, fields) => write("warn", msg, fields),
    error: (msg, fields) => write("error", msg, fields),
    child: (fields) => createLogger(level, { ...base, ...fields }),
  };
}
