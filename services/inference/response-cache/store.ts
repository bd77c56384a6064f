// Where answers are kept: Redis (adapters/redis/response-cache.ts) when REDIS_URL is set, else the
// database (database-store.ts); a memory of this process's own (below) for tests and for an inference
// gateway with neither. Every store bounds the entries of one organization and deployment (a scope) by
// max_entries, oldest first, and forgets them after their TTL; the cache (cache.ts) checks the age
// again with its own clock, so a store's expiry is housekeeping, never what decides freshness.

/** One organization's answers of one deployment. */
export interface CacheScope {
  orgId: string;
  deploymentId: string;
}

/** An answer as stored: the chat.completion JSON text and when it was computed (ms since the epoch). */
export interface StoredAnswer {
  text: string;
  storedAtMs: number;
}

export interface EntryBounds {
  ttlMs: number;
  maxEntries: number;
}

export interface ResponseCacheStore {
  /** Where the answers are kept, for the metrics and the logs: memory, redis, database. */
  readonly kind: string;
  get(scope: CacheScope, key: string): Promise<StoredAnswer | undefined>;
  put(scope: CacheScope, key: string, answer: StoredAnswer, bounds: EntryBounds): Promise<void>;
  /**
   * Claims the computing of `key` for every process sharing the store, for up to `ttlMs`: false when
   * another process holds the claim (it will store the answer). Stores one process alone uses leave it
   * out: the cache's own in-process coalescing is enough there.
   */
  claim?(scope: CacheScope, key: string, ttlMs: number): Promise<boolean>;
  release?(scope: CacheScope, key: string): Promise<void>;
}

/** A memory of this process: a Map per scope, in insertion order, so the oldest is the first key. */
export class MemoryResponseCacheStore implements ResponseCacheStore {
  readonly kind = "memory";
  private readonly scopes = new Map<string, Map<string, StoredAnswer & { expiresAtMs: number }>>();

  constructor(private readonly now: () => number = Date.now) {}

  async get(scope: CacheScope, key: string): Promise<StoredAnswer | undefined> {
    const entries = this.scopes.get(scopeId(scope));
    const found = entries?.get(key);
    if (!found) return undefined;
    if (found.expiresAtMs <= this.now()) {
      entries?.delete(key);
      return undefined;
    }
    return { text: found.text, storedAtMs: found.storedAtMs };
  }

  async put(scope: CacheScope, key: string, answer: StoredAnswer, bounds: EntryBounds): Promise<void> {
    const id = scopeId(scope);
    let entries = this.scopes.get(id);
    if (!entries) {
      entries = new Map();
      this.scopes.set(id, entries);
    }
    entries.delete(key);
    entries.set(key, { ...answer, expiresAtMs: answer.storedAtMs + bounds.ttlMs });
    for (const oldest of entries.keys()) {
      if (entries.size <= bounds.maxEntries) break;
      entries.delete(oldest);
    }
  }
}

export const scopeId = (scope: CacheScope) => `${scope.orgId}:${scope.deploymentId}`;
