// Prometheus metrics through prom-client. Each gateway owns a registry (its HTTP series carry its
// `gateway` label, so tests may build many gateways in one process without clashing names); what
// belongs to the process (CPU, memory, start time, event loop) sits in one registry shared by every
// gateway of the process, and each /metrics shows both, plus what the gateway adds (the inference
// runtime's LLM series, the gRPC series, the orchestration gauges).
//
// Adding a series is one line where it is counted: `counter(name, help, labels)` of
// services/observability/counters.ts for what the process does (shown on each of its gateways), or a
// prom-client metric on a gateway's own registry for what only that gateway does.
import { Counter, Histogram, Registry } from "prom-client";
import { processRegistry } from "#services/observability/counters.ts";
import { SeriesCache } from "#services/observability/metric-series.ts";

export { processRegistry };

/** Seconds: from a millisecond to the longest a streamed answer may reasonably take. */
export const latencyBuckets = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300,
];

/** A counter of what was answered and a histogram of how long each answer took, under the same labels. */
export function answerSeries<L extends string>(
  registry: Registry,
  labelNames: readonly L[],
  counted: { name: string; help: string },
  timed: { name: string; help: string },
): { count: Counter<L>; seconds: Histogram<L> } {
  return {
    count: new Counter({ ...counted, labelNames, registers: [registry] }),
    seconds: new Histogram({ ...timed, labelNames, buckets: latencyBuckets, registers: [registry] }),
  };
}

/** What /metrics renders: the registries of one gateway (its own first). */
export type RegistrySource = () => readonly Registry[];

export class HttpMetrics {
  readonly registry = new Registry();
  private readonly series = answerSeries(
    this.registry,
    ["gateway", "method", "route", "status"],
    { name: "http_requests_total", help: "HTTP requests answered." },
    {
      name: "http_request_duration_seconds",
      help: "Time from request to the last byte of the response (streamed answers included).",
    },
  );
  // Each request's two series, found once per method, route and status (metric-series.ts).
  private readonly requestSeries = new SeriesCache(this.series.count);
  private readonly durationSeries = new SeriesCache(this.series.seconds);

  /** Answers observed so far. */
  private answers = 0;
  private readonly awaiting = new Set<{ answers: number; resolve: () => void }>();

  constructor(
    private readonly gateway: string,
    private readonly extra: RegistrySource = () => [],
  ) {}

  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    const labels = () => ({ gateway: this.gateway, method, route, status });
    this.requestSeries.get(key, labels).inc();
    this.durationSeries.get(key, labels).observe(seconds);
    this.answers++;
    if (this.awaiting.size > 0) this.wakeAwaiting();
  }

  /** How many answers have been observed. */
  get observed(): number {
    return this.answers;
  }

  /**
   * Resolves once `answers` answers in all have been observed. An answer is observed after it has gone
   * out (a stream at its last byte), so whoever holds a response and wants it counted waits for this.
   */
  observedAtLeast(answers: number): Promise<void> {
    if (this.answers >= answers) return Promise.resolve();
    return new Promise((resolve) => this.awaiting.add({ answers, resolve }));
  }

  private wakeAwaiting(): void {
    for (const waiter of this.awaiting) {
      if (this.answers < waiter.answers) continue;
      this.awaiting.delete(waiter);
      waiter.resolve();
    }
  }

  readonly contentType = this.registry.contentType;

  async render(): Promise<string> {
    const parts = await Promise.all(
      [this.registry, ...this.extra(), processRegistry].map((registry) => registry.metrics()),
    );
    return `${parts
      .map((text) => text.trim())
      .filter((text) => text !== "")
      .join("\n")}\n`;
  }
}
