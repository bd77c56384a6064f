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
import { processRegistry } from "../../services/observability/counters.ts";
import { SeriesCache } from "../../services/observability/metric-series.ts";

export { processRegistry };

/** Seconds: from a millisecond to the longest a streamed answer may reasonably take. */
export const latencyBuckets = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300,
];

/** What /metrics renders: the registries of one gateway (its own first). */
export type RegistrySource = () => readonly Registry[];

export class HttpMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<"gateway" | "method" | "route" | "status">;
  private readonly duration: Histogram<"gateway" | "method" | "route" | "status">;
  // Each request's two series, found once per method, route and status (metric-series.ts).
  private readonly requestSeries: SeriesCache;
  private readonly durationSeries: SeriesCache;

  constructor(
    private readonly gateway: string,
    private readonly extra: RegistrySource = () => [],
  ) {
    const labelNames = ["gateway", "method", "route", "status"] as const;
    this.requests = new Counter({
      name: "http_requests_total",
      help: "HTTP requests answered.",
      labelNames,
      registers: [this.registry],
    });
    this.duration = new Histogram({
      name: "http_request_duration_seconds",
      help: "Time from request to the last byte of the response (streamed answers included).",
      labelNames,
      buckets: latencyBuckets,
      registers: [this.registry],
    });
    this.requestSeries = new SeriesCache(this.requests);
    this.durationSeries = new SeriesCache(this.duration);
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    const labels = () => ({ gateway: this.gateway, method, route, status });
    this.requestSeries.get(key, labels).inc();
    this.durationSeries.get(key, labels).observe(seconds);
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
