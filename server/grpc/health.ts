// grpc.health.v1.Health: what Kubernetes probes, load balancers and grpc_health_probe ask.
// The board is the one place statuses live; the service only reads it, so anything that learns
// the server is unwell (shutdown, a lost database) flips a status and every Watch hears it.
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import {
  Health,
  HealthCheckResponse_ServingStatus as ServingStatus,
} from "#proto/gen/grpc/health/v1/health_pb.ts";

export { ServingStatus };

/** The status of the server as a whole, as Check and Watch answer it for service "". */
export const WHOLE_SERVER = "";

export interface HealthBoard {
  /** Sets a service's status (use WHOLE_SERVER for the server); a new name becomes known. */
  setStatus(service: string, status: ServingStatus): void;
  /** undefined for a service the board does not know. */
  statusOf(service: string): ServingStatus | undefined;
  /** Every known service and its status. */
  snapshot(): ReadonlyMap<string, ServingStatus>;
  /** Marks everything NOT_SERVING for good and ends every Watch once it has said so. */
  shutDown(): void;
}

export interface WatchableHealthBoard extends HealthBoard {
  readonly isShutDown: boolean;
  /** Resolves at the next change or shutdown, or when the signal aborts. */
  nextChange(signal: AbortSignal): Promise<void>;
}

/** Starts with the whole server SERVING; services become known as their status is set. */
export function createHealthBoard(): WatchableHealthBoard {
  const statuses = new Map<string, ServingStatus>([[WHOLE_SERVER, ServingStatus.SERVING]]);
  const watchers = new Set<() => void>();
  let isShutDown = false;

  const notify = () => {
    for (const wake of watchers) wake();
  };

  return {
    get isShutDown() {
      return isShutDown;
    },
    setStatus(service, status) {
      // After shutdown nothing may report SERVING again: a late setStatus would mislead probes.
      if (isShutDown || statuses.get(service) === status) return;
      statuses.set(service, status);
      notify();
    },
    statusOf: (service) => statuses.get(service),
    snapshot: () => new Map(statuses),
    shutDown() {
      if (isShutDown) return;
      isShutDown = true;
      for (const service of statuses.keys()) statuses.set(service, ServingStatus.NOT_SERVING);
      notify();
    },
    nextChange(signal) {
      return new Promise((resolve) => {
        if (signal.aborted) return resolve();
        const wake = () => {
          watchers.delete(wake);
          signal.removeEventListener("abort", wake);
          resolve();
        };
        signal.addEventListener("abort", wake, { once: true });
        watchers.add(wake);
      });
    },
  };
}

export function registerHealth(router: ConnectRouter, board: WatchableHealthBoard): void {
  router.service(Health, {
    check({ service }) {
      const status = board.statusOf(service);
      if (status === undefined) throw new ConnectError(`unknown service "${service}"`, Code.NotFound);
      return { status };
    },
    list() {
      const statuses: Record<string, { status: ServingStatus }> = {};
      for (const [service, status] of board.snapshot()) statuses[service] = { status };
      return { statuses };
    },
    async *watch({ service }, context) {
      let sent: ServingStatus | undefined;
      while (!context.signal.aborted) {
        const current = board.statusOf(service) ?? ServingStatus.SERVICE_UNKNOWN;
        if (current !== sent) {
          sent = current;
          yield { status: current };
          // Read again before waiting: a change made while the message was being sent counts.
          continue;
        }
        // Ending with OK tells the client to reconnect (elsewhere), which a draining server wants.
        if (board.isShutDown) return;
        await board.nextChange(context.signal);
      }
    },
  });
}
