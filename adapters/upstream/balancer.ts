// Picks the replica with the fewest requests in flight from this process. Ties rotate, so equal
// replicas share the load instead of the first one taking it all. With a ReplicaHealth, replicas out
// of rotation are passed over, unless every one left is out: then the least busy of them is tried
// anyway (Envoy's "panic" routing), so a wrong verdict never turns into an outage of its own.
import type { ReachedEndpoints } from "./connect-probe.ts";
import type { ReplicaHealth } from "./replica-health.ts";

export class InFlightBalancer {
  private readonly inflight = new Map<string, number>();
  private turn = 0;
  /** Endpoints that answered lately skip the connect probe (connect-probe.ts). */
  readonly reached: ReachedEndpoints = new Map();

  constructor(readonly health?: ReplicaHealth | undefined) {}

  pick(endpoints: readonly string[], exclude?: ReadonlySet<string>): string | undefined {
    let best: string | undefined;
    let bestCount = Number.POSITIVE_INFINITY;
    let bestOut = true;
    const offset = this.turn++;
    for (let i = 0; i < endpoints.length; i++) {
      const endpoint = endpoints[(i + offset) % endpoints.length] as string;
      if (exclude?.has(endpoint)) continue;
      const out = this.health?.isOut(endpoint) ?? false;
      // One in rotation beats any out of it; among equals, fewer in flight wins.
      if (out && !bestOut) continue;
      const count = this.inflight.get(endpoint) ?? 0;
      if ((bestOut && !out) || count < bestCount) {
        best = endpoint;
        bestCount = count;
        bestOut = out;
      }
    }
    return best;
  }

  /** The endpoints in rotation (all of them without a ReplicaHealth). */
  inRotation(endpoints: readonly string[]): readonly string[] {
    const health = this.health;
    if (!health) return endpoints;
    return endpoints.filter((e) => !health.isOut(e));
  }

  /** What a request to the endpoint came to: a failure counts towards taking it out of rotation. */
  report(endpoint: string, ok: boolean): void {
    if (!this.health) return;
    if (ok) this.health.succeeded(endpoint);
    else this.health.failed(endpoint);
  }

  /** Counts a request against the endpoint; the returned release may be called more than once. */
  acquire(endpoint: string): () => void {
    this.inflight.set(endpoint, (this.inflight.get(endpoint) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.inflight.get(endpoint) ?? 1) - 1;
      if (left <= 0) this.inflight.delete(endpoint);
      else this.inflight.set(endpoint, left);
    };
  }

  inFlight(endpoint: string): number {
    return this.inflight.get(endpoint) ?? 0;
  }
}
