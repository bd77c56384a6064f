// The inference gateway's side of load reporting: it counts per deployment the requests in flight,
// those waiting for a replica and the completion tokens, and sends them to the shared store every
// interval (and at once when a request starts waiting: that is the demand that scales from zero).

import type { LogFields } from "#core/logger.ts";
import type { DeploymentLoad, LoadStore } from "#core/ports/load-store.ts";
import type { Logger } from "../../context.ts";
import { throttledWarning } from "../../observability/throttled-log.ts";

interface Counts {
  inFlight: number;
  queued: number;
  /**
   * The most at once since the last report, which is what is reported: a snapshot would miss requests
   * shorter than the interval (1 request a second of 200 ms each looked idle and was scaled to zero).
   */
  peakInFlight: number;
  peakQueued: number;
  tokens: number;
  /** When it last had a request in flight or waiting: idle deployments are reported a while, then not. */
  lastBusy: number;
}

export interface LoadReporterOptions {
  store: LoadStore;
  log: Logger;
  intervalMs?: number | undefined;
  /** Called when a request starts waiting for a replica (the orchestrator of this process looks now). */
  onDemand?: (() => void) | undefined;
}

export class LoadReporter {
  readonly id = crypto.randomUUID();
  readonly intervalMs: number;
  private readonly counts = new Map<string, Counts>();
  private readonly timer: ReturnType<typeof setInterval>;
  private lastFlush = performance.now();
  private flushing: Promise<void> | undefined;
  private readonly warn: (fields: LogFields) => void;

  constructor(private readonly options: LoadReporterOptions) {
    this.intervalMs = options.intervalMs ?? 1000;
    this.warn = throttledWarning(options.log, "load report not written; autoscaling sees older figures");
    this.timer = setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref?.();
  }

  /** Three intervals: one missed report is no gap, a stopped process is forgotten within seconds. */
  get ttlMs(): number {
    return this.intervalMs * 3;
  }

  private of(deploymentId: string): Counts {
    let c = this.counts.get(deploymentId);
    if (!c) {
      c = { inFlight: 0, queued: 0, peakInFlight: 0, peakQueued: 0, tokens: 0, lastBusy: Date.now() };
      this.counts.set(deploymentId, c);
    }
    return c;
  }

  /** A request is being served; call the returned function once it ends (safe to call twice). */
  enter(deploymentId: string): () => void {
    return this.hold(deploymentId, "inFlight");
  }

  /** A request waits for a replica; the store hears of it now. */
  queue(deploymentId: string): () => void {
    const release = this.hold(deploymentId, "queued");
    this.options.onDemand?.();
    void this.flush();
    return release;
  }

  tokens(deploymentId: string, count: number): void {
    if (count > 0) this.of(deploymentId).tokens += count;
  }

  private hold(deploymentId: string, field: "inFlight" | "queued"): () => void {
    const c = this.of(deploymentId);
    c[field]++;
    if (field === "inFlight") c.peakInFlight = Math.max(c.peakInFlight, c.inFlight);
    else c.peakQueued = Math.max(c.peakQueued, c.queued);
    c.lastBusy = Date.now();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      c[field]--;
      c.lastBusy = Date.now();
    };
  }

  /** Sends the figures now (coalesced with a send under way). */
  flush(): Promise<void> {
    this.flushing ??= this.send().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async send(): Promise<void> {
    const now = performance.now();
    const seconds = Math.max(0.001, (now - this.lastFlush) / 1000);
    this.lastFlush = now;
    const loads = new Map<string, DeploymentLoad>();
    for (const [id, c] of this.counts) {
      loads.set(id, {
        inFlight: c.peakInFlight,
        queued: c.peakQueued,
        tokensPerSecond: Math.round((c.tokens / seconds) * 100) / 100,
      });
      c.tokens = 0;
      c.peakInFlight = c.inFlight;
      c.peakQueued = c.queued;
      // Idle for longer than a report lives: its last report (all zeros) has expired; stop sending.
      if (c.inFlight === 0 && c.queued === 0 && Date.now() - c.lastBusy > this.ttlMs * 2)
        this.counts.delete(id);
    }
    if (loads.size === 0) return;
    try {
      await this.options.store.report(this.id, loads, this.ttlMs);
    } catch (error) {
      this.warn({ error: (error as Error).message ?? String(error), store: this.options.store.kind });
    }
  }

  /** What this process sees now (tests, and the gateway's own view). */
  current(deploymentId: string): { inFlight: number; queued: number } {
    const c = this.counts.get(deploymentId);
    return { inFlight: c?.inFlight ?? 0, queued: c?.queued ?? 0 };
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flushing;
  }
}
