// The context's sequences, lent one per request. node-llama-cpp's getSequence() throws when none is free, so
// the worker takes all of them at start and lends them here: a request that finds none waits its turn (FIFO)
// instead of failing, and a returned sequence is reset before the next request sees it.

export class QueueClosedError extends Error {
  constructor() {
    super("the worker is shutting down");
  }
}

interface Waiter<T> {
  resolve(item: T): void;
  reject(error: unknown): void;
}

export interface Lease<T> {
  item: T;
  /** Resets the item and hands it to the next waiter. Safe to call more than once. */
  release(): Promise<void>;
}

export class SequencePool<T> {
  private readonly free: T[];
  private readonly waiters: Waiter<T>[] = [];
  private closed = false;

  constructor(
    items: T[],
    /** Makes an item clean again (for a sequence: clear its history). */
    private readonly reset: (item: T) => Promise<void>,
  ) {
    this.free = [...items];
  }

  get freeCount(): number {
    return this.free.length;
  }

  get waitingCount(): number {
    return this.waiters.length;
  }

  /** Resolves with a free item, in arrival order; rejects when the signal aborts first or the pool closes. */
  acquire(signal?: AbortSignal): Promise<Lease<T>> {
    if (this.closed) return Promise.reject(new QueueClosedError());
    if (signal?.aborted) return Promise.reject(signal.reason);
    const item = this.free.shift();
    if (item !== undefined) return Promise.resolve(this.lease(item));
    return new Promise<Lease<T>>((resolve, reject) => {
      const onAbort = () => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(signal?.reason);
      };
      const waiter: Waiter<T> = {
        resolve: (next) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(this.lease(next));
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

  private lease(item: T): Lease<T> {
    let released: Promise<void> | undefined;
    return {
      item,
      release: () => {
        released ??= this.giveBack(item);
        return released;
      },
    };
  }

  private async giveBack(item: T): Promise<void> {
    try {
      await this.reset(item);
    } finally {
      const next = this.waiters.shift();
      if (next) next.resolve(item);
      else this.free.push(item);
    }
  }
}
