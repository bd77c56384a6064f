import type { ServiceName } from "./config.ts";

/** One open port: an HTTP gateway, the gRPC server or the dashboard. Its own module so that the starters
 * of each listener and the platform that owns them do not import each other. */
export interface Listener {
  name: ServiceName | "grpc";
  port: number;
  /** Stop accepting, let in-flight work finish until the deadline, then close. */
  stop(deadlineMs: number): Promise<void>;
}
