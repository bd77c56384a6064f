import { propertyOf } from "#core/error-chain.ts";
import { ConfigError, type ServiceName } from "./config.ts";

/** One open port: an HTTP gateway, the gRPC server or the dashboard. Its own module so that the starters
 * of each listener and the platform that owns them do not import each other. */
export interface Listener {
  name: ServiceName | "grpc";
  port: number;
  /** Stop accepting, let in-flight work finish until the deadline, then close. */
  stop(deadlineMs: number): Promise<void>;
}

/** Starts a listener; a port already taken is a configuration error naming the variable to change. */
export async function bound(
  variable: string,
  port: number,
  start: () => Promise<Listener> | Listener,
): Promise<Listener> {
  try {
    return await start();
  } catch (error) {
    if (propertyOf(error, "code") !== "EADDRINUSE") throw error;
    throw new ConfigError(variable, `port ${port} is in use: set ${variable} to another port`);
  }
}
