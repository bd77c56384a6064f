// Which replica most recently served each prompt prefix, per deployment: the memory behind prefix-aware
// routing (balancer.ts). A prompt arrives as a chain of block hashes (services/inference/prefix-blocks.ts):
// block i's hash covers blocks 0..i, so one table entry per block stands for the whole prefix up to it,
// and the longest prefix a replica holds is the last block of the chain that the table knows.
//
// Entries live in one Map per deployment, each in least-recently-recorded order, the deployments in the
// order they last recorded: a bounded LRU (maxEntries; the oldest entries of the deployment that
// recorded least recently go first) with a time to live, as an engine's KV cache forgets what it has not
// seen for a while. An entry recorded again for the same replica moves only once it is half its time to
// live old: a turn costs lookups, not rewrites. An entry naming a replica that is no longer among the
// deployment's (drained, removed, out of rotation) is dropped when met.
// With a SharedPrefixStore (Redis when REDIS_URL is set), what one gateway process records reaches the
// others: a process that knows nothing of a prompt asks the store before routing blind.

/** A prompt as the router sees it: its deployment (scope) and its chain of 64-bit block hashes, in order. */
export interface Affinity {
  scope: string;
  blocks: readonly bigint[];
}

/** What prefix routing did for one request: followed a prefix, found none, or found one on a replica over its load bound. */
export type AffinityOutcome = "hit" | "miss" | "overloaded";

export interface PrefixMatch {
  endpoint: string;
  /** How many blocks of the prompt the replica served last (the matched prefix's length). */
  blocks: number;
}

/** The table shared by gateway processes (adapters/redis/prefix-store.ts). */
export interface SharedPrefixStore {
  /** The endpoint recorded for each block of the chain, null where none is; a failure reads as none. */
  lookup(scope: string, blocks: readonly bigint[]): Promise<(string | null)[]>;
  /** Records, without waiting, that the endpoint served the chain. */
  record(scope: string, blocks: readonly bigint[], endpoint: string, ttlMs: number): void;
}

export interface PrefixTableOptions {
  /** Most entries kept (one per block of each prompt recorded); the oldest go first. Default 100,000. */
  maxEntries?: number | undefined;
  /** An entry not recorded again for this long is ignored and dropped. Default 15 minutes. */
  ttlMs?: number | undefined;
  shared?: SharedPrefixStore | undefined;
  now?: (() => number) | undefined;
}

interface Entry {
  endpoint: string;
  at: number;
}

export class PrefixTable {
  private readonly scopes = new Map<string, Map<bigint, Entry>>();
  private count = 0;
  private readonly maxEntries: number;
  readonly ttlMs: number;
  readonly shared: SharedPrefixStore | undefined;
  private readonly now: () => number;

  constructor(options: PrefixTableOptions = {}) {
    this.maxEntries = options.maxEntries ?? 100_000;
    this.ttlMs = options.ttlMs ?? 15 * 60_000;
    this.shared = options.shared;
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.count;
  }

  /**
   * The replica that served the longest prefix of the chain, among those `usable` says may take it;
   * entries of replicas not in `present` (the deployment's replicas now) are dropped on the way.
   */
  longest(
    affinity: Affinity,
    present: readonly string[],
    usable: (endpoint: string) => boolean,
  ): PrefixMatch | undefined {
    const entries = this.scopes.get(affinity.scope);
    if (!entries) return undefined;
    const { blocks } = affinity;
    const oldest = this.now() - this.ttlMs;
    for (let i = blocks.length - 1; i >= 0; i--) {
      const block = blocks[i] as bigint;
      const entry = entries.get(block);
      if (!entry) continue;
      if (entry.at < oldest || !present.includes(entry.endpoint)) {
        entries.delete(block);
        this.count--;
        continue;
      }
      if (usable(entry.endpoint)) return { endpoint: entry.endpoint, blocks: i + 1 };
    }
    return undefined;
  }

  /** The longest prefix the shared store knows, with the same rules; undefined without a store. */
  async longestShared(
    affinity: Affinity,
    present: readonly string[],
    usable: (endpoint: string) => boolean,
  ): Promise<PrefixMatch | undefined> {
    if (!this.shared) return undefined;
    const found = await this.shared.lookup(affinity.scope, affinity.blocks);
    for (let i = found.length - 1; i >= 0; i--) {
      const endpoint = found[i];
      if (endpoint && present.includes(endpoint) && usable(endpoint)) return { endpoint, blocks: i + 1 };
    }
    return undefined;
  }

  /** The replica now serves the chain: every block of it points there, as the most recent. */
  record(affinity: Affinity, endpoint: string): void {
    const { scope, blocks } = affinity;
    if (blocks.length === 0) return;
    const at = this.now();
    const fresh = at - this.ttlMs / 2;
    let entries = this.scopes.get(scope);
    if (entries) this.scopes.delete(scope);
    else entries = new Map();
    // Set again so that the deployments' order is the order they last recorded.
    this.scopes.set(scope, entries);
    for (const block of blocks) {
      const entry = entries.get(block);
      if (entry?.endpoint === endpoint && entry.at > fresh) continue;
      // Deleted first so that the Map's order stays the order of recording (the LRU's).
      if (entry) entries.delete(block);
      else this.count++;
      entries.set(block, { endpoint, at });
    }
    if (this.count > this.maxEntries) this.evict(this.count - this.maxEntries);
    this.shared?.record(scope, blocks, endpoint, this.ttlMs);
  }

  /** The oldest entries of the deployments that recorded least recently. */
  private evict(over: number): void {
    for (const [scope, entries] of this.scopes) {
      for (const block of entries.keys()) {
        entries.delete(block);
        this.count--;
        if (--over === 0) break;
      }
      if (entries.size === 0) this.scopes.delete(scope);
      if (over === 0) return;
    }
  }

  /** A replica is gone (removed, or out of rotation long enough to be forgotten): its prefixes go with it. */
  forget(endpoint: string): void {
    for (const entries of this.scopes.values()) {
      for (const [block, entry] of entries) {
        if (entry.endpoint !== endpoint) continue;
        entries.delete(block);
        this.count--;
      }
    }
  }
}
