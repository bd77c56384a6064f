// The inference gateway's memory of resolved contexts. The hot path reads it without waiting:
// - younger than `refreshAfterMs`: served as is;
// - between that and `maxAgeMs`: served, and refreshed in the background (so steady traffic never waits);
// - older than `maxAgeMs`: refreshed before use, so a revoked key or stopped deployment is seen within
//   `maxAgeMs` of the change;
// - when the refresh fails (the source is unreachable): the old value keeps serving until `staleForMs`,
//   after which the caller gets the failure (new keys fail closed; known ones ride out a short outage).
// Past `maxEntries` the least recently used key goes: a Map iterates in insertion order, so a key is
// moved to the end on every hit and the first key is the coldest.

export interface CacheOptions {
  refreshAfterMs: number;
  maxAgeMs: number;
  staleForMs: number;
  maxEntries: number;
  now?: () => number;
}

interface Entry<V> {
  value: V;
  loadedAt: number;
  refreshing?: Promise<V> | undefined;
}

export class RevalidatingCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly pending = new Map<string, Promise<V>>();
  private readonly now: () => number;

  constructor(
    private readonly load: (key: string) => Promise<V>,
    private readonly options: CacheOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  async get(key: string): Promise<V> {
    const entry = this.entries.get(key);
    if (!entry) return this.fetch(key);
    this.entries.delete(key);
    this.entries.set(key, entry);
    const age = this.now() - entry.loadedAt;
    if (age < this.options.refreshAfterMs) return entry.value;
    if (age < this.options.maxAgeMs) {
      if (!entry.refreshing) {
        entry.refreshing = this.fetch(key).catch(() => entry.value);
        entry.refreshing.finally(() => {
          entry.refreshing = undefined;
        });
      }
      return entry.value;
    }
    try {
      return await this.fetch(key);
    } catch (error) {
      if (age < this.options.staleForMs) return entry.value;
      this.entries.delete(key);
      throw error;
    }
  }

  /** Forgets a key (a change known in this process takes effect at once). */
  invalidate(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Resolves once every load under way, a background refresh too, has ended (its entry stored). */
  async settled(): Promise<void> {
    await Promise.allSettled(this.pending.values());
  }

  private fetch(key: string): Promise<V> {
    const inFlight = this.pending.get(key);
    if (inFlight) return inFlight;
    const loading = this.load(key)
      .then((value) => {
        if (!this.entries.delete(key) && this.entries.size >= this.options.maxEntries) {
          const coldest = this.entries.keys().next().value;
          if (coldest !== undefined) this.entries.delete(coldest);
        }
        this.entries.set(key, { value, loadedAt: this.now() });
        return value;
      })
      .finally(() => this.pending.delete(key));
    this.pending.set(key, loading);
    return loading;
  }
}
