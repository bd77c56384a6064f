// Collects records off the hot path and hands them to a sink in batches: when `maxBatch` are waiting or
// every `intervalMs`. A failed batch is kept and retried with the next, up to `maxQueued` records (then
// the oldest are dropped and counted). `close()` flushes what is left, for graceful shutdown.

export interface BatcherOptions<T> {
  sink(batch: T[]): Promise<void>;
  maxBatch: number;
  intervalMs: number;
  maxQueued: number;
  onError?(error: unknown, queued: number): void;
}

export class Batcher<T> {
  private queue: T[] = [];
  private flushing: Promise<void> | undefined;
  private readonly timer: ReturnType<typeof setInterval>;
  dropped = 0;

  constructor(private readonly options: BatcherOptions<T>) {
    this.timer = setInterval(() => void this.flush(), options.intervalMs);
    this.timer.unref?.();
  }

  add(record: T): void {
    this.queue.push(record);
    if (this.queue.length > this.options.maxQueued) {
      const excess = this.queue.length - this.options.maxQueued;
      this.queue.splice(0, excess);
      this.dropped += excess;
    }
    if (this.queue.length >= this.options.maxBatch) void this.flush();
  }

  get pending(): number {
    return this.queue.length;
  }

  /** Sends everything queued now; resolves when it was sent (or failed and was re-queued). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.options.maxBatch);
    this.flushing = this.options
      .sink(batch)
      .catch((error) => {
        this.queue.unshift(...batch);
        this.options.onError?.(error, this.queue.length);
      })
      .finally(() => {
        this.flushing = undefined;
      });
    await this.flushing;
    if (this.queue.length >= this.options.maxBatch) await this.flush();
  }

  /** Stops the timer and sends what is left, retrying until `deadlineMs`. */
  async close(deadlineMs = 5000): Promise<void> {
    clearInterval(this.timer);
    const until = Date.now() + deadlineMs;
    while (this.queue.length > 0 && Date.now() < until) {
      const before = this.queue.length;
      await this.flush();
      if (this.queue.length >= before) await Bun.sleep(100);
    }
  }
}
