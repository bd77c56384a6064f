// What services log through (server/log.ts writes it as JSON lines). Its own module so that the
// process-wide parts AppContext holds can log without importing the context that holds them.

export type LogFields = Record<string, unknown>;
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}
