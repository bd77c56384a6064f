// Passive health of replicas, as Envoy's outlier detection does it: nothing is polled while a replica
// answers; one that fails `failureThreshold` requests in a row (no connection, a 5xx, no first byte in
// time) is taken out of rotation, then probed with a growing back-off until it answers again. Each
// gateway process keeps its own view, from the requests it sent itself.

export interface ReplicaHealthOptions {
  /** Failures in a row that take a replica out of rotation (default 3). */
  failureThreshold: number;
  /** The first probe after a replica is taken out; each failed probe doubles the wait. */
  probeBaseMs: number;
  probeMaxMs: number;
  /** Does the replica answer again? */
  probe(endpoint: string): Promise<boolean>;
  /** A replica went out of rotation (`out`) or came back. */
  onChange?(endpoint: string, out: boolean): void;
  /** A replica out of rotation that no request asked for this long is forgotten (it was removed). */
  forgetAfterMs?: number;
  onForget?(endpoint: string): void;
  /** The clock `forgetAfterMs` is counted on (default Date.now; a test moves its own). */
  now?: () => number;
}

export const defaultReplicaHealth = { failureThreshold: 3, probeBaseMs: 1000, probeMaxMs: 30_000 } as const;

interface Ejection {
  timer: ReturnType<typeof setTimeout> | undefined;
  delayMs: number;
  /** The last time a request would have gone to it: a replica nobody asks for is not probed forever. */
  wantedAt: number;
}

export class ReplicaHealth {
  private readonly failures = new Map<string, number>();
  private readonly ejected = new Map<string, Ejection>();
  private closed = false;

  private readonly now: () => number;

  constructor(private readonly options: ReplicaHealthOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Whether a request would pass the replica over; asking also marks it as still wanted. */
  isOut(endpoint: string): boolean {
    const ejection = this.ejected.get(endpoint);
    if (ejection) ejection.wantedAt = this.now();
    return ejection !== undefined;
  }

  /** The replicas out of rotation now. */
  outOfRotation(): string[] {
    return [...this.ejected.keys()];
  }

  succeeded(endpoint: string): void {
    if (this.failures.size > 0) this.failures.delete(endpoint);
  }

  failed(endpoint: string): void {
    if (this.ejected.has(endpoint) || this.closed) return;
    const count = (this.failures.get(endpoint) ?? 0) + 1;
    if (count < this.options.failureThreshold) {
      this.failures.set(endpoint, count);
      return;
    }
    this.failures.delete(endpoint);
    const ejection: Ejection = { timer: undefined, delayMs: this.options.probeBaseMs, wantedAt: this.now() };
    this.ejected.set(endpoint, ejection);
    this.options.onChange?.(endpoint, true);
    this.schedule(endpoint, ejection);
  }

  close(): void {
    this.closed = true;
    for (const ejection of this.ejected.values()) clearTimeout(ejection.timer);
    this.ejected.clear();
    this.failures.clear();
  }

  private schedule(endpoint: string, ejection: Ejection): void {
    ejection.timer = setTimeout(() => void this.probe(endpoint, ejection), ejection.delayMs);
    // A pending probe never keeps the process alive.
    (ejection.timer as { unref?: () => void }).unref?.();
  }

  private async probe(endpoint: string, ejection: Ejection): Promise<void> {
    const forgetAfterMs = this.options.forgetAfterMs ?? 10 * 60_000;
    if (this.now() - ejection.wantedAt > forgetAfterMs) {
      this.ejected.delete(endpoint);
      this.options.onForget?.(endpoint);
      return;
    }
    const answers = await this.options.probe(endpoint).catch(() => false);
    if (this.closed || this.ejected.get(endpoint) !== ejection) return;
    if (answers) {
      this.ejected.delete(endpoint);
      this.options.onChange?.(endpoint, false);
      return;
    }
    ejection.delayMs = Math.min(ejection.delayMs * 2, this.options.probeMaxMs);
    this.schedule(endpoint, ejection);
  }
}
