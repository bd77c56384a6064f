// Collects records off the hot path and hands them to a sink in batches: when `maxBatch` are waiting or
// every `intervalMs`. One batch is in flight at a time.
// - A failed batch (the receiver is down or answers 5xx) goes back to the front of the queue and is
//   retried after a capped exponential back-off with jitter (`retry`), so an unreachable receiver costs a
//   few calls a minute, not a busy loop.
// - A batch the receiver refuses (the sink throws BatchRefused: a 4xx, our bug, not an outage) would be
//   refused again: it is dropped, counted in `refused` and reported through `onRefused`.
// - The queue holds at most `maxQueued` records; past that the oldest are dropped and counted in
//   `dropped` (the newest say most about what is happening now).
// `close()` flushes what is left, for graceful shutdown, and hands back what it could not send.

import { Counter, type Registry } from "prom-client";

/** Thrown by a sink when the receiver refused the batch itself: sending it again cannot help. */
export class BatchRefused extends Error {
  override name = "BatchRefused";
}

export interface RetryOptions {
  /** The first back-off; it doubles with each failure in a row. */
  baseMs: number;
  /** The longest back-off. */
  maxMs: number;
}

export interface BatcherOptions<T> {
  sink(batch: T[]): Promise<void>;
  maxBatch: number;
  intervalMs: number;
  maxQueued: number;
  retry?: RetryOptions;
  /** A failed attempt; `retryInMs` until the next. */
  onError?(error: unknown, queued: number, retryInMs: number): void;
  /** A refused batch, dropped. */
  onRefused?(error: unknown, records: number): void;
  /**
   * Where records go when the receiver stays away (failing for `afterMs`) or the queue is full, instead
   * of memory or being dropped: `put` keeps them (DATA_DIR/spill), `take` hands them back once a batch
   * is written again. Unset: they wait in memory, and the oldest are dropped past `maxQueued`.
   */
  spill?: SpillStore<T> | undefined;
  random?: () => number;
}

export interface SpillStore<T> {
  afterMs: number;
  put(records: T[]): void;
  take(): T[];
}

export const defaultRetry: RetryOptions = { baseMs: 250, maxMs: 30_000 };

/** Capped exponential back-off with "equal jitter": between half and all of base·2^failures, capped. */
export function backoffMs(failures: number, retry: RetryOptions, random: () => number = Math.random): number {
  const ceiling = Math.min(retry.maxMs, retry.baseMs * 2 ** Math.max(0, failures - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

export class Batcher<T> {
  private queue: T[] = [];
  private inFlight: T[] | undefined;
  private closed = false;
  private flushing: Promise<void> | undefined;
  private readonly timer: ReturnType<typeof setInterval>;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private failures = 0;
  private retryAt = 0;
  /** Records dropped because the queue was full. */
  dropped = 0;
  /** Records dropped because the receiver refused their batch. */
  refused = 0;
  /** Failed attempts, each followed by a back-off. */
  retries = 0;
  /** Records moved to the spill store (and later queued again from it). */
  spilled = 0;
  /** Records may wait in the spill store. */
  private spillPending = false;
  /** Since when the receiver has failed without a success in between. */
  private failingSince: number | undefined;

  constructor(private readonly options: BatcherOptions<T>) {
    this.timer = setInterval(() => void this.flush(), options.intervalMs);
    this.timer.unref?.();
  }

  add(record: T): void {
    this.queue.push(record);
    this.trim();
    if (this.queue.length >= this.options.maxBatch) void this.flush();
  }

  get pending(): number {
    return this.queue.length;
  }

  /**
   * Sends what is queued, batch by batch, unless a back-off is running (then the retry timer comes
   * back for it). Resolves when the queue is empty or an attempt failed; never rejects.
   */
  async flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    this.flushing = this.drain().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  /**
   * Stops the timers and sends what is left, retrying (back-off or not) until `deadlineMs`. Resolves
   * with the records still unsent then (taken out of the queue), for the caller to keep elsewhere.
   */
  async close(deadlineMs = 5000): Promise<T[]> {
    clearInterval(this.timer);
    clearTimeout(this.retryTimer);
    const until = Date.now() + deadlineMs;
    // A batch in flight (the interval's) is waited for even when nothing else is queued: counted as
    // unsent, it was spilled and written again at the next start (479 of 21,020 log rows twice in
    // bench/gateway.ts --apart 2), and usage charged twice.
    while ((this.queue.length > 0 || this.flushing) && Date.now() < until) {
      this.retryAt = 0;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, until - Date.now()));
      });
      // A sink that hangs (a receiver that accepts and never answers) must not hold the stop.
      await Promise.race([this.flush(), deadline]);
      clearTimeout(timer);
      if (this.queue.length > 0 && this.failures > 0) await Bun.sleep(Math.min(100, until - Date.now()));
    }
    clearTimeout(this.retryTimer);
    // A batch still in flight at the deadline is counted as unsent (the sink may yet write it: a
    // record sent twice is better than one lost).
    const left = this.inFlight ? [...this.inFlight, ...this.queue] : this.queue;
    this.queue = [];
    this.closed = true;
    return left;
  }

  private async drain(): Promise<void> {
    // One batch, then more only while full ones wait: a partial batch waits for the interval.
    for (
      let first = true;
      this.queue.length > 0 &&
      (first || this.queue.length >= this.options.maxBatch) &&
      Date.now() >= this.retryAt;
      first = false
    ) {
      const batch = this.queue.splice(0, this.options.maxBatch);
      this.inFlight = batch;
      try {
        await this.options.sink(batch);
        this.failures = 0;
        this.failingSince = undefined;
        if (this.spillPending) this.unspill();
      } catch (error) {
        if (this.closed) return;
        if (error instanceof BatchRefused) {
          this.refused += batch.length;
          this.failures = 0;
          this.options.onRefused?.(error, batch.length);
          continue;
        }
        this.queue.unshift(...batch);
        this.failingSince ??= Date.now();
        const spill = this.options.spill;
        // The receiver stays away: what waits goes to disk, so a long outage holds no memory and a
        // crash loses nothing queued.
        // One batch stays: the next attempt, whose success brings the rest back.
        if (spill && Date.now() - this.failingSince >= spill.afterMs)
          this.spillOut(this.queue.length - this.options.maxBatch);
        this.trim();
        this.failures++;
        this.retries++;
        const wait = backoffMs(this.failures, this.options.retry ?? defaultRetry, this.options.random);
        this.retryAt = Date.now() + wait;
        clearTimeout(this.retryTimer);
        this.retryTimer = setTimeout(() => void this.flush(), wait);
        this.retryTimer.unref?.();
        this.options.onError?.(error, this.queue.length, wait);
        return;
      } finally {
        this.inFlight = undefined;
      }
    }
  }

  private trim(): void {
    const excess = this.queue.length - this.options.maxQueued;
    if (excess <= 0) return;
    if (this.spillOut(excess)) return;
    this.queue.splice(0, excess);
    this.dropped += excess;
  }

  /** Moves the oldest `count` records to the spill store; false when there is none or it failed. */
  private spillOut(count: number): boolean {
    const spill = this.options.spill;
    if (!spill || count <= 0) return false;
    const out = this.queue.slice(0, count);
    try {
      spill.put(out);
    } catch {
      return false;
    }
    this.queue.splice(0, count);
    this.spilled += out.length;
    this.spillPending = true;
    return true;
  }

  /**
   * The receiver answers again: what was spilled is queued again (oldest first, before the rest), as
   * much as the queue holds; the rest goes back to the store for the next successful batch.
   */
  private unspill(): void {
    const spill = this.options.spill;
    if (!spill) return;
    const room = this.options.maxQueued - this.queue.length;
    if (room <= 0) return;
    const back = spill.take();
    this.spillPending = false;
    const kept = back.slice(0, room);
    const rest = back.slice(room);
    this.queue.unshift(...kept);
    if (rest.length > 0) {
      try {
        spill.put(rest);
        this.spillPending = true;
      } catch {
        this.queue.push(...rest);
        this.trim();
      }
    }
  }
}

const droppedHelp =
  "Records of a batch dropped: the queue was full (overflow) or the receiver refused them (refused).";

type Counted = Pick<Batcher<never>, "dropped" | "refused" | "retries" | "spilled">;

/**
 * Records dropped (queue full, or refused) and failed attempts, per batcher, as counters of `registry`
 * read from the batchers when /metrics is scraped.
 */
export function registerBatchCounters(registry: Registry, batchers: Record<string, Counted>): void {
  new Counter({
    name: "inference_batch_records_dropped_total",
    help: droppedHelp,
    labelNames: ["batch", "reason"],
    registers: [registry],
    collect() {
      this.reset();
      for (const [batch, b] of Object.entries(batchers)) {
        this.inc({ batch, reason: "overflow" }, b.dropped);
        this.inc({ batch, reason: "refused" }, b.refused);
      }
    },
  });
  new Counter({
    name: "inference_batch_records_spilled_total",
    help: "Records moved to DATA_DIR/spill while the receiver stayed away or the queue was full.",
    labelNames: ["batch"],
    registers: [registry],
    collect() {
      this.reset();
      for (const [batch, b] of Object.entries(batchers)) this.inc({ batch }, b.spilled);
    },
  });
  new Counter({
    name: "inference_batch_retries_total",
    help: "Failed batch sends, each retried after a back-off.",
    labelNames: ["batch"],
    registers: [registry],
    collect() {
      this.reset();
      for (const [batch, b] of Object.entries(batchers)) this.inc({ batch }, b.retries);
    },
  });
}
