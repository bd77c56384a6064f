// What one inference request reports while it runs: its Prometheus series (services/inference/metrics.ts)
// and, when tracing is on, its span tree: a SERVER span `{operation} {model}` with the GenAI attributes,
// a child span per lifecycle step that ran, and a CLIENT span for the replica whose `traceparent` goes
// on the upstream request. admission.ts makes one per request, so every endpoint gets all of it.

import type { Attributes } from "@opentelemetry/api";
import { ATTR_ERROR_TYPE, ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT } from "@opentelemetry/semantic-conventions";
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
} from "@opentelemetry/semantic-conventions/incubating";
import { sendUpstream, type UpstreamRequest, type UpstreamResponse } from "#adapters/upstream/send.ts";
import { cachedTokensOf } from "#adapters/upstream/sse-relay.ts";
import type { Usage } from "#contracts/openai/chat.ts";
import { type AppError, answeredCode } from "#core/errors.ts";
import { contextOf, endFailed, parentOf, type Span, SpanKind, traceHeadersOf } from "../telemetry/tracing.ts";
import { type DeploymentLabels, type GenAiOperation, replicaLabel } from "./metrics.ts";
import type { InferenceContext, InferenceLogEntry } from "./port.ts";
import type { InferenceRuntime } from "./runtime.ts";

export interface ObservedMeta {
  model: string;
  operation: GenAiOperation;
  stream: boolean;
  /** The caller's request headers: a `traceparent` among them continues the caller's trace. */
  incoming?: Headers | undefined;
}

export type Step =
  | "key and context"
  | "rate limits"
  | "quota"
  | "budget"
  | "waiting for a replica"
  | "input guardrails"
  | "classifier"
  | "prompt processing"
  | "response cache"
  | "output guardrails";

export interface RequestObserver {
  /** Runs one lifecycle step, in its own span when tracing. */
  step<T>(name: Step, fn: () => T): T;
  /** Attributes of the request's span (gen_ai.request.max_tokens...); nothing when not tracing. */
  annotate(attributes: Attributes): void;
  /** Whether the span records (to skip building attributes nobody will see). */
  readonly tracing: boolean;
  resolved(context: InferenceContext): void;
  admission(check: "rate_limit" | "quota" | "budget", allowed: boolean): void;
  /** The first token is ready to go out. */
  firstToken(): void;
  send(request: Omit<UpstreamRequest, "headers">): Promise<UpstreamResponse>;
  finish(entry: InferenceLogEntry, usage: Usage | undefined, error: AppError | undefined): void;
}

const unknownDeployment: DeploymentLabels = { deployment: "", deployment_id: "" };

export function observeRequest(runtime: InferenceRuntime, meta: ObservedMeta): RequestObserver {
  const metrics = runtime.metrics;
  const tracer = runtime.tracing?.tracer;
  const started = performance.now();
  let firstTokenMs: number | undefined;
  let labels = unknownDeployment;
  // The series cache's key of the deployment's labels: both values, as either may repeat.
  let deploymentKey = "\u0000";
  const series = metrics.series;
  let admitted = false;
  const span: Span | undefined = tracer?.startSpan(
    `${meta.operation} ${meta.model}`,
    {
      kind: SpanKind.SERVER,
      attributes: {
        [ATTR_GEN_AI_OPERATION_NAME]: meta.operation,
        [ATTR_GEN_AI_REQUEST_MODEL]: meta.model,
        [ATTR_GEN_AI_PROVIDER_NAME]: "openai",
        "gen_ai.request.stream": meta.stream,
      },
    },
    parentOf(meta.incoming),
  );

  return {
    tracing: span?.isRecording() ?? false,
    step<T>(name: Step, fn: () => T): T {
      if (!span || !tracer) return fn();
      const child = tracer.startSpan(name, {}, contextOf(span));
      try {
        const result = fn();
        if (result instanceof Promise) {
          return result.then(
            (value) => {
              child.end();
              return value;
            },
            (error: unknown) => {
              endFailed(child, error);
              throw error;
            },
          ) as T;
        }
        child.end();
        return result;
      } catch (error) {
        endFailed(child, error);
        throw error;
      }
    },
    annotate(attributes) {
      span?.setAttributes(attributes);
    },
    resolved(context) {
      labels = { deployment: context.deployment.name, deployment_id: context.deployment.id };
      deploymentKey = `${labels.deployment_id}\u0000${labels.deployment}`;
      const deployment = labels;
      series.inFlight.get(deploymentKey, () => deployment).inc();
      admitted = true;
      span?.setAttributes({
        "llm.deployment.id": context.deployment.id,
        "llm.organization.id": context.orgId,
      });
    },
    admission(check, allowed) {
      const decision = allowed ? "allow" : "reject";
      series.admission
        .get(`${deploymentKey}\u0000${check}\u0000${decision}`, () => ({ ...labels, check, decision }))
        .inc();
    },
    firstToken() {
      firstTokenMs ??= performance.now();
    },
    async send(request) {
      const client = tracer?.startSpan(
        `${meta.operation} ${labels.deployment}`,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            [ATTR_GEN_AI_OPERATION_NAME]: meta.operation,
            [ATTR_GEN_AI_REQUEST_MODEL]: labels.deployment,
          },
        },
        span ? contextOf(span) : undefined,
      );
      const sent = performance.now();
      let upstream: UpstreamResponse;
      try {
        upstream = await sendUpstream(runtime.balancer, {
          ...request,
          headers: client ? traceHeadersOf(client) : undefined,
        });
      } catch (error) {
        if (client) endFailed(client, error);
        throw error;
      }
      const routing = upstream.routing;
      if (routing) {
        series.prefixRouting
          .get(`${deploymentKey}\u0000${routing}`, () => ({ ...labels, outcome: routing }))
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
      const release = upstream.release;
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
            .get(`${deploymentKey}\u0000${upstream.endpoint}\u0000${outcome}`, () => ({
              ...labels,
              replica: replicaLabel(upstream.endpoint),
              outcome,
            }))
            .observe((performance.now() - sent) / 1000);
          if (!client) return;
          if (!ok) client.setAttribute(ATTR_ERROR_TYPE, String(upstream.response.status));
          client.end();
        },
      };
    },
    finish(entry, usage, error) {
      const now = performance.now();
      const outcome = error ? "error" : "ok";
      const errorCode = error ? answeredCode(error) : "";
      const operation = meta.operation;
      const key = `${deploymentKey}\u0000${operation}`;
      series.requests
        .get(`${key}\u0000${outcome}\u0000${errorCode}`, () => ({
          ...labels,
          operation,
          outcome,
          error_code: errorCode,
        }))
        .inc();
      series.duration
        .get(`${key}\u0000${outcome}`, () => ({ ...labels, operation, outcome }))
        .observe((now - started) / 1000);
      if (admitted) series.inFlight.get(deploymentKey, () => labels).dec();
      if (!error && operation !== "embeddings") {
        series.timeToFirstToken
          .get(key, () => ({ ...labels, operation }))
          .observe(((firstTokenMs ?? now) - started) / 1000);
      }
      if (usage) {
        series.tokens
          .get(`${key}\u0000input`, () => ({ ...labels, operation, type: "input" }))
          .observe(usage.prompt_tokens);
        if (operation !== "embeddings") {
          series.tokens
            .get(`${key}\u0000output`, () => ({ ...labels, operation, type: "output" }))
            .observe(usage.completion_tokens);
          series.cachedTokens.get(key, () => ({ ...labels, operation })).inc(cachedTokensOf(usage));
        }
      }
      recordGuardrails(runtime, labels, deploymentKey, entry);
      if (!span) return;
      span.setAttributes({ [ATTR_GEN_AI_RESPONSE_MODEL]: labels.deployment || meta.model });
      if (usage) {
        span.setAttributes({
          [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: usage.prompt_tokens,
          [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: usage.completion_tokens,
        });
      }
      if (firstTokenMs !== undefined)
        span.setAttribute("gen_ai.response.time_to_first_chunk", (firstTokenMs - started) / 1000);
      if (error) endFailed(span, Object.assign(new Error(error.message), { code: errorCode }));
      else span.end();
    },
  };
}

/** The scanners' decisions the log entry holds, one count per stage and scanner. */
function recordGuardrails(
  runtime: InferenceRuntime,
  labels: DeploymentLabels,
  deploymentKey: string,
  entry: InferenceLogEntry,
): void {
  const count = (stage: string, scanner: string, action: string) =>
    runtime.metrics.series.guardrails
      .get(`${deploymentKey}\u0000${stage}\u0000${scanner}\u0000${action}`, () => ({
        ...labels,
        stage,
        scanner,
        action,
      }))
      .inc();
  const { guardrails } = entry;
  for (const stage of ["input", "output"] as const) {
    const decision = guardrails[stage] as { action: string; findings: { scanner: string }[] } | undefined;
    if (!decision) continue;
    const scanners = new Set(decision.findings.map((f) => f.scanner));
    if (scanners.size === 0) scanners.add("none");
    for (const scanner of scanners) count(stage, scanner, decision.action);
  }
  const classifier = guardrails.classifier as { action: string } | undefined;
  if (classifier) count("input", "classifier", classifier.action);
}

function urlOf(endpoint: string): { hostname: string; port: number } {
  try {
    const url = new URL(endpoint);
    return { hostname: url.hostname, port: Number(url.port) || (url.protocol === "https:" ? 443 : 80) };
  } catch {
    return { hostname: "unknown", port: 0 };
  }
}
