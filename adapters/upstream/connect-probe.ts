// fetch() has no connect time-out of its own. Before sending to an endpoint not reached recently, a TCP
// connect with a deadline tells a dead replica from a slow one, so the request can go elsewhere.
// Endpoints that answered within the last seconds skip it: the hot path pays nothing under load.
// What was reached when is kept by the balancer of the runtime that sends (InFlightBalancer.reached).

const trustMs = 10_000;

/** When each endpoint last answered or accepted a connection. */
export type ReachedEndpoints = Map<string, number>;

export class ConnectFailure extends Error {
  constructor(
    readonly endpoint: string,
    reason: string,
  ) {
    super(`cannot connect to ${endpoint}: ${reason}`);
  }
}

export function markReached(recentlyReached: ReachedEndpoints, endpoint: string, now = Date.now()): void {
  recentlyReached.set(endpoint, now);
}

export async function ensureReachable(
  recentlyReached: ReachedEndpoints,
  endpoint: string,
  timeoutMs: number,
): Promise<void> {
  const seen = recentlyReached.get(endpoint);
  if (seen !== undefined && Date.now() - seen < trustMs) return;
  const url = new URL(endpoint);
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new ConnectFailure(endpoint, `no connection within ${timeoutMs} ms`)),
      timeoutMs,
    );
    Bun.connect({
      hostname: url.hostname,
      port,
      socket: {
        open(socket) {
          clearTimeout(timer);
          socket.end();
          resolve();
        },
        data() {},
        connectError(_socket, error) {
          clearTimeout(timer);
          reject(new ConnectFailure(endpoint, error.message));
        },
      },
    }).catch((error: Error) => {
      clearTimeout(timer);
      reject(new ConnectFailure(endpoint, error.message));
    });
  });
  markReached(recentlyReached, endpoint);
}
