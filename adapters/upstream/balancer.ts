// Picks the replica with the fewest requests in flight from this process. Ties rotate, so equal
// replicas share the load instead of the first one taking it all. With a ReplicaHealth, replicas out
// of rotation are passed over, unless every one left is out: then the least busy of them is tried
// anyway (Envoy's "panic" routing), so a wrong verdict never turns into an outage of its own.
//
// With a PrefixTable, a request that carries its prompt's block hashes (an Affinity) goes to the replica
// that most recently served the longest prefix of it, where the engine still holds that prefix's KV
// cache, unless that replica is over its load bound: in flight + 1 > ceil(c × (all in flight + 1) / n)
// over the n replicas in rotation ("consistent hashing with bounded loads", Mirrokni et al.), so one hot
// prefix cannot pile a fleet's work onto one replica. Otherwise, fewest in flight as above.
// A match covering less than half the prompt's blocks (minMatchShare, SGLang's cache-aware router's
// default cache threshold) counts as a miss: prompts that share only a common head (one system prompt
// or template before each conversation's own text) would otherwise all follow that head to one
// replica, more conversations than its engine can keep, while another replica idles.
import type { ReachedEndpoints } from "./connect-probe.ts";
import type { Affinity, AffinityOutcome, PrefixMatch, PrefixTable } from "./prefix-table.ts";
import type { ReplicaHealth } from "./replica-health.ts";

/** The bound's c: a replica may carry up to 25 % more than an even share before its prefixes move. */
export const defaultLoadFactor = 1.25;

/** The share of a prompt's blocks a replica must hold for its match to count. */
export const minMatchShare = 0.5;

export interface Choice {
  endpoint: string;
  /** Set when the request carried an affinity and the deployment had more than one replica to choose from. */
  routing?: AffinityOutcome | undefined;
}

export class InFlightBalancer {
  private readonly inflight = new Map<string, number>();
  private turn = 0;
  /** Endpoints that answered lately skip the connect probe (connect-probe.ts). */
  readonly reached: ReachedEndpoints = new Map();

  constructor(
    readonly health?: ReplicaHealth | undefined,
    readonly prefixes?: PrefixTable | undefined,
    readonly loadFactor = defaultLoadFactor,
  ) {}

  /**
   * The replica for a request: by prefix when it carries an affinity and this balancer keeps a table,
   * else fewest in flight. Answers at once (so the caller counts the request against the replica before
   * another picks), except when the local table knows nothing and a shared one is asked.
   */
  choose(
    endpoints: readonly string[],
    exclude?: ReadonlySet<string>,
    affinity?: Affinity,
  ): Choice | undefined | Promise<Choice | undefined> {
    const table = this.prefixes;
    if (!affinity || !table) {
      const endpoint = this.pick(endpoints, exclude);
      return endpoint === undefined ? undefined : { endpoint };
    }
    const usable = (e: string) => !exclude?.has(e) && !(this.health?.isOut(e) ?? false);
    const candidates = endpoints.filter(usable);
    if (candidates.length < 2) {
      // Nothing to choose: the prompt is still recorded, so a replica added later finds it placed.
      const endpoint = this.pick(endpoints, exclude);
      if (endpoint !== undefined) table.record(affinity, endpoint);
      return endpoint === undefined ? undefined : { endpoint };
    }
    const match = table.longest(affinity, endpoints, usable);
    if (match || !table.shared) return this.settle(affinity, candidates, match);
    return table
      .longestShared(affinity, endpoints, usable)
      .then((shared) => this.settle(affinity, candidates, shared));
  }

  /** Follows the match within the load bound, else fewest in flight; records where the prompt went. */
  private settle(
    affinity: Affinity,
    candidates: readonly string[],
    match: PrefixMatch | undefined,
  ): Choice | undefined {
    let routing: AffinityOutcome = "miss";
    let endpoint: string | undefined;
    if (match && match.blocks >= minMatchShare * affinity.blocks.length) {
      if (this.withinBound(match.endpoint, candidates)) {
        routing = "hit";
        endpoint = match.endpoint;
      } else routing = "overloaded";
    }
    endpoint ??= this.pick(candidates);
    if (endpoint === undefined) return undefined;
    this.prefixes?.record(affinity, endpoint);
    return { endpoint, routing };
  }

  /** May the replica take one more request without going over ceil(c × (total + 1) / n)? */
  withinBound(endpoint: string, candidates: readonly string[]): boolean {
    let total = 0;
    for (const e of candidates) total += this.inFlight(e);
    const bound = Math.ceil((this.loadFactor * (total + 1)) / candidates.length);
    return this.inFlight(endpoint) + 1 <= bound;
  }

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
