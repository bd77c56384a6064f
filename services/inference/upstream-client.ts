// The one way the inference gateway calls a replica: sendUpstream (the least busy replica, one retry on
// another when the connection fails, the deadlines), with a CLIENT span whose `traceparent` goes on the
// request, the prefix-routing count and the upstream duration per replica. Every caller goes through
// it: a request's own call (observe.ts), the guard model's classifier (classifier.ts) and the response
// cache's question embedding (adapters/upstream/embed.ts, given `send`).
import { ATTR_ERROR_TYPE, ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT } from "@opentelemetry/semantic-conventions";
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
} from "@opentelemetry/semantic-conventions/incubating";
import type { InFlightBalancer } from "#adapters/upstream/balancer.ts";
import { sendUpstream, type UpstreamRequest, type UpstreamResponse } from "#adapters/upstream/send.ts";
import {
  contextOf,
  endFailed,
  type Span,
  SpanKind,
  type Tracer,
  traceHeadersOf,
} from "../telemetry/tracing.ts";
import {
  type DeploymentLabels,
  type GenAiOperation,
  type InferenceMetrics,
  replicaLabel,
} from "./metrics.ts";

/** Whom a call is for, as the series and spans name it. */
export interface UpstreamCallee {
  operation: GenAiOperation;
  labels: DeploymentLabels;
  /** The labels' key in the series caches (metric-series.ts): both values, as either may repeat. */
  key: string;
  /** The span the call's CLIENT span belongs under (the request's). */
  parent?: Span | undefined;
}

export type OutgoingRequest = Omit<UpstreamRequest, "headers">;

/** The series key of a deployment's labels. */
export const seriesKeyOf = (labels: DeploymentLabels) => `${labels.deployment_id}\u0000${labels.deployment}`;

export class UpstreamClient {
  constructor(
    readonly balancer: InFlightBalancer,
    private readonly metrics: InferenceMetrics,
    /** Read per call: tracing may be turned on and off while the process runs. */
    private readonly tracer: () => Tracer | undefined,
  ) {}

  async send(request: OutgoingRequest, callee: UpstreamCallee): Promise<UpstreamResponse> {
    const client = this.clientSpan(callee);
    const sent = performance.now();
    let upstream: UpstreamResponse;
    try {
      upstream = await sendUpstream(this.balancer, {
        ...request,
        headers: client ? traceHeadersOf(client) : undefined,
      });
    } catch (error) {
      if (client) endFailed(client, error);
      throw error;
    }
    const routing = upstream.routing;
    if (routing) {
      this.metrics.series.prefixRouting
        .get(`${callee.key}\u0000${routing}`, () => ({ ...callee.labels, outcome: routing }))
        .inc();
    }
    if (client) {
      // Parsed only for a span: an untraced request does not pay for the URL.
      const { hostname, port } = urlOf(upstream.endpoint);
      client.setAttributes({
        [ATTR_SERVER_ADDRESS]: hostname,
        [ATTR_SERVER_PORT]: port,
        "http.response.status_code": upstream.response.status,
      });
    }
    return this.measured(upstream, callee, client, sent);
  }

  private clientSpan(callee: UpstreamCallee): Span | undefined {
    return this.tracer()?.startSpan(
      `${callee.operation} ${callee.labels.deployment}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [ATTR_GEN_AI_OPERATION_NAME]: callee.operation,
          [ATTR_GEN_AI_REQUEST_MODEL]: callee.labels.deployment,
        },
      },
      callee.parent ? contextOf(callee.parent) : undefined,
    );
  }

  /** The response whose release (once) frees the replica, records the call's duration and ends its span. */
  private measured(
    upstream: UpstreamResponse,
    callee: UpstreamCallee,
    client: Span | undefined,
    sent: number,
  ): UpstreamResponse {
    const release = upstream.release;
    const series = this.metrics.series;
    let released = false;
    return {
      ...upstream,
      release() {
        if (released) return;
        released = true;
        release();
        const ok = upstream.response.ok;
        const outcome = ok ? "ok" : "error";
        series.upstream
          .get(`${callee.key}\u0000${upstream.endpoint}\u0000${outcome}`, () => ({
            ...callee.labels,
            replica: replicaLabel(upstream.endpoint),
            outcome,
          }))
          .observe((performance.now() - sent) / 1000);
        if (!client) return;
        if (!ok) client.setAttribute(ATTR_ERROR_TYPE, String(upstream.response.status));
        client.end();
      },
    };
  }
}

function urlOf(endpoint: string): { hostname: string; port: number } {
  try {
    const url = new URL(endpoint);
    return { hostname: url.hostname, port: Number(url.port) || (url.protocol === "https:" ? 443 : 80) };
  } catch {
    return { hostname: "unknown", port: 0 };
  }
}
