// The context's sequences, lent one per request, each keeping the tokens of its last request (llama-server's
// slots with `cache_prompt`). node-llama-cpp's getSequence() throws when none is free, so the worker takes all of
// them at start and lends them here. A request takes the free sequence whose kept tokens share the longest prefix
// with its prompt, so a conversation's next turn finds its earlier turns already evaluated; a prompt that shares
// too little with every free sequence takes the least recently used one instead, so a new conversation overwrites
// the one idle longest rather than the one that matched a few template tokens. A request that finds no free
// sequence waits its turn (FIFO) instead of failing.

export class QueueClosedError extends Error {
  constructor() {
    super("the worker is shutting down");
  }
}

/**
 * llama-server's `--slot-prompt-similarity` default: a free sequence is chosen for its prefix only when the
 * shared prefix is more than this share of the prompt.
 */
export const PREFIX_SIMILARITY = 0.1;

type Token = number;

interface Waiter<T> {
  prompt: readonly Token[];
  resolve(lease: Lease<T>): void;
  reject(error: unknown): void;
}

export interface Lease<T> {
  item: T;
  /** Tokens of the prompt the item already held when it was chosen (what the engine may skip). */
  sharedPrefix: number;
  /**
   * Hands the item to the next waiter, keeping its tokens; `clear` empties it first (after a failure whose
   * state is unknown). Safe to call more than once.
   */
  release(options?: { clear?: boolean }): Promise<void>;
}

export interface SequencePoolOptions<T> {
  /** The tokens the item holds now. */
  tokens(item: T): readonly Token[];
  /** Empties the item (for a sequence: clear its history). */
  clear(item: T): Promise<void>;
  similarity?: number;
}

export class SequencePool<T> {
  private readonly free: T[];
  /** Item → the order of its last release (0: never used); the smallest is the least recently used. */
  private readonly lastUsed = new Map<T, number>();
  private releases = 0;
  private readonly waiters: Waiter<T>[] = [];
  private closed = false;

  constructor(
    items: T[],
    private readonly options: SequencePoolOptions<T>,
  ) {
    this.free = [...items];
    for (const item of items) this.lastUsed.set(item, 0);
  }

  get freeCount(): number {
    return this.free.length;
  }

  get waitingCount(): number {
    return this.waiters.length;
  }

  /**
   * Resolves with the free item best suited to `prompt` (the request's rendered prompt tokens), in arrival order;
   * rejects when the signal aborts first or the pool closes.
   */
  acquire(prompt: readonly Token[], signal?: AbortSignal): Promise<Lease<T>> {
    if (this.closed) return Promise.reject(new QueueClosedError());
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.free.length > 0 && this.waiters.length === 0) return Promise.resolve(this.take(prompt));
    return new Promise<Lease<T>>((resolve, reject) => {
      const onAbort = () => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(signal?.reason);
      };
      const waiter: Waiter<T> = {
        prompt,
        resolve: (lease) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(lease);
        },
        reject: (error) => {
          signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Refuses new requests and fails the ones still waiting; leases already given stay valid. */
  close(): void {
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) waiter.reject(new QueueClosedError());
  }

  /** Takes the best free item for the prompt out of the free list. */
  private take(prompt: readonly Token[]): Lease<T> {
    const { index, shared } = this.choose(prompt);
    const [item] = this.free.splice(index, 1);
    if (item === undefined) throw new Error(`no free item at ${index}`);
    return this.lease(item, shared);
  }

  /** The longest shared prefix above the similarity threshold, else the least recently used item. */
  private choose(prompt: readonly Token[]): { index: number; shared: number } {
    const threshold = (this.options.similarity ?? PREFIX_SIMILARITY) * prompt.length;
    let best = { index: -1, shared: 0 };
    let oldest = { index: 0, used: Number.POSITIVE_INFINITY, shared: 0 };
    for (const [index, item] of this.free.entries()) {
      const shared = sharedPrefix(this.options.tokens(item), prompt);
      if (shared > best.shared) best = { index, shared };
      const used = this.lastUsed.get(item) ?? 0;
      if (used < oldest.used) oldest = { index, used, shared };
    }
    return best.index >= 0 && best.shared > threshold ? best : oldest;
  }

  private lease(item: T, shared: number): Lease<T> {
    let released: Promise<void> | undefined;
    return {
      item,
      sharedPrefix: shared,
      release: (options) => {
        released ??= this.giveBack(item, options?.clear === true);
        return released;
      },
    };
  }

  private async giveBack(item: T, clear: boolean): Promise<void> {
    try {
      if (clear) await this.options.clear(item);
    } finally {
      this.releases += 1;
      this.lastUsed.set(item, this.releases);
      this.free.push(item);
      const next = this.waiters.shift();
      if (next) next.resolve(this.take(next.prompt));
    }
  }
}

/** How many leading tokens two token lists share. */
export function sharedPrefix(a: readonly Token[], b: readonly Token[]): number {
  const end = Math.min(a.length, b.length);
  let i = 0;
  while (i < end && a[i] === b[i]) i++;
  return i;
}
