// The inference gateway's LLM series (docs/observability.md lists them). Names follow the OpenTelemetry
// GenAI conventions where they name the same thing (gen_ai.server.request.duration →
// gen_ai_server_request_duration_seconds, as OpenTelemetry's own Prometheus exporter spells it).
// Labels are bounded: the deployment's name and id (the deployments table bounds them; the name alone
// may repeat across organizations), the operation, outcomes and codes from fixed lists, the replica's
// host:port. Never a key, a user's text or a request id: a request whose deployment is unknown (a bad
// key, an unknown model) is counted with deployment="".
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { SeriesCache } from "../observability/metric-series.ts";

/** gen_ai.operation.name of each inference endpoint. */
export type GenAiOperation = "chat" | "embeddings" | "text_completion" | "generate_content";

export interface DeploymentLabels {
  deployment: string;
  deployment_id: string;
}

const seconds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** What OpenTelemetry advises for gen_ai.client.token.usage. */
const tokenBuckets = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304];

type Deployment = "deployment" | "deployment_id";
const deployment = ["deployment", "deployment_id"] as const;

export class InferenceMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<Deployment | "operation" | "outcome" | "error_code"> = new Counter({
    name: "llm_requests_total",
    help: "Inference requests finished, by outcome (ok or error) and OpenAI error code.",
    labelNames: [...deployment, "operation", "outcome", "error_code"],
    registers: [this.registry],
  });
  readonly duration: Histogram<Deployment | "operation" | "outcome"> = new Histogram({
    name: "gen_ai_server_request_duration_seconds",
    help: "Inference request duration, to the last byte of a streamed answer.",
    labelNames: [...deployment, "operation", "outcome"],
    buckets: seconds,
    registers: [this.registry],
  });
  readonly timeToFirstToken: Histogram<Deployment | "operation"> = new Histogram({
    name: "gen_ai_server_time_to_first_token_seconds",
    help: "Time until the first token of an answer was ready to send (the whole answer when not streamed).",
    labelNames: [...deployment, "operation"],
    buckets: seconds,
    registers: [this.registry],
  });
  readonly tokens: Histogram<Deployment | "operation" | "type"> = new Histogram({
    name: "gen_ai_client_token_usage",
    help: "Tokens per request (type input or output); _sum counts all tokens.",
    labelNames: [...deployment, "operation", "type"],
    buckets: tokenBuckets,
    registers: [this.registry],
  });
  readonly upstream: Histogram<Deployment | "replica" | "outcome"> = new Histogram({
    name: "llm_upstream_duration_seconds",
    help: "Replica exchanges, from sending the request to the last byte received, by replica host:port.",
    labelNames: [...deployment, "replica", "outcome"],
    buckets: seconds,
    registers: [this.registry],
  });
  readonly admission: Counter<Deployment | "check" | "decision"> = new Counter({
    name: "llm_admission_decisions_total",
    help: "Rate-limit, quota and budget checks, by check (rate_limit, quota, budget) and decision (allow, reject).",
    labelNames: [...deployment, "check", "decision"],
    registers: [this.registry],
  });
  readonly guardrails: Counter<Deployment | "stage" | "scanner" | "action"> = new Counter({
    name: "llm_guardrail_decisions_total",
    help: "Guardrail evaluations by stage, scanner (none: nothing found) and action (allow, log, redact, block).",
    labelNames: [...deployment, "stage", "scanner", "action"],
    registers: [this.registry],
  });
  readonly inFlight: Gauge<Deployment> = new Gauge({
    name: "llm_requests_in_flight",
    help: "Inference requests admitted and not finished yet.",
    labelNames: [...deployment],
    registers: [this.registry],
  });
  readonly fallbacks: Counter<Deployment | "served_by"> = new Counter({
    name: "llm_fallbacks_total",
    help: "Requests a fallback of the deployment's routing policy answered, by the deployment that served (served_by).",
    labelNames: [...deployment, "served_by"],
    registers: [this.registry],
  });
  readonly upstreamAuthFailures: Counter<Deployment> = new Counter({
    name: "llm_upstream_auth_failures_total",
    help: "Requests a hosted upstream refused with 401 or 403: the platform's credential for it (the deployment's configuration.credential) was refused.",
    labelNames: [...deployment],
    registers: [this.registry],
  });
  readonly replicasOut: Gauge<"replica"> = new Gauge({
    name: "llm_replicas_out_of_rotation",
    help: "1 for each replica this gateway has taken out of rotation after failures in a row, until a probe brings it back.",
    labelNames: ["replica"],
    registers: [this.registry],
  });
  readonly prefixRouting: Counter<Deployment | "outcome"> = new Counter({
    name: "llm_prefix_routing_total",
    help:
      "Routing decisions by prompt prefix, by outcome: hit (the replica that served the longest prefix took it), " +
      "miss (no replica known to hold a prefix: fewest in flight), overloaded (it was over its load bound).",
    labelNames: [...deployment, "outcome"],
    registers: [this.registry],
  });
  readonly cachedTokens: Counter<Deployment | "operation"> = new Counter({
    name: "llm_cached_tokens_total",
    help: "Prompt tokens the engine reused from its prefix cache, as its usage said (prompt_tokens_details.cached_tokens).",
    labelNames: [...deployment, "operation"],
    registers: [this.registry],
  });
  /** The response cache (services/inference/response-cache/): lookups by kind and result, bytes. */
  readonly responseCache: Counter<Deployment | "kind" | "result"> = new Counter({
    name: "llm_response_cache_lookups_total",
    help:
      "Response-cache lookups by kind (exact, semantic) and result: hit (answered from the cache), miss " +
      "(computed), bypass (the caller's Cache-Control: no-cache or no-store).",
    labelNames: [...deployment, "kind", "result"],
    registers: [this.registry],
  });
  readonly responseCacheBytes: Counter<Deployment | "direction"> = new Counter({
    name: "llm_response_cache_bytes_total",
    help: "Bytes of answers the response cache stored (direction=stored) and replayed (direction=served).",
    labelNames: [...deployment, "direction"],
    registers: [this.registry],
  });
  /** The per-request series, found once each and updated in place (metric-series.ts). */
  readonly series: Record<
    | "requests"
    | "duration"
    | "timeToFirstToken"
    | "tokens"
    | "upstream"
    | "admission"
    | "guardrails"
    | "inFlight"
    | "prefixRouting"
    | "cachedTokens",
    SeriesCache
  > = {
    requests: new SeriesCache(this.requests),
    duration: new SeriesCache(this.duration),
    timeToFirstToken: new SeriesCache(this.timeToFirstToken),
    tokens: new SeriesCache(this.tokens),
    upstream: new SeriesCache(this.upstream),
    admission: new SeriesCache(this.admission),
    guardrails: new SeriesCache(this.guardrails),
    inFlight: new SeriesCache(this.inFlight),
    prefixRouting: new SeriesCache(this.prefixRouting),
    cachedTokens: new SeriesCache(this.cachedTokens),
  };
}

/** The replica's host:port, bounded by the replicas table (never its path or query). */
export function replicaLabel(endpoint: string): string {
  try {
    return new URL(endpoint).host;
  } catch {
    return "unknown";
  }
}
