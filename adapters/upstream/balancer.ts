// Picks the replica with the fewest requests in flight from this process. Ties rotate, so equal
// replicas share the load instead of the first one taking it all.

export class InFlightBalancer {
  private readonly inflight = new Map<string, number>();
  private turn = 0;

  pick(endpoints: readonly string[], exclude?: ReadonlySet<string>): string | undefined {
    let best: string | undefined;
    let bestCount = Number.POSITIVE_INFINITY;
    const offset = this.turn++;
    for (let i = 0; i < endpoints.length; i++) {
      const endpoint = endpoints[(i + offset) % endpoints.length] as string;
      if (exclude?.has(endpoint)) continue;
      const count = this.inflight.get(endpoint) ?? 0;
      if (count < bestCount) {
        best = endpoint;
        bestCount = count;
      }
    }
    return best;
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
