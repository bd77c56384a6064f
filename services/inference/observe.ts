// What one inference request reports while it runs: its Prometheus series (services/inference/metrics.ts)
// and, when tracing is on, its span tree: a SERVER span `{operation} {model}` with the GenAI attributes,
// a child span per lifecycle step that ran, and a CLIENT span for the replica whose `traceparent` goes
// on the upstream request. admission.ts makes one per request, so every endpoint gets all of it.

import type { Attributes } from "@opentelemetry/api";
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
} from "@opentelemetry/semantic-conventions/incubating";
import type { UpstreamResponse } from "#adapters/upstream/send.ts";
import { cachedTokensOf } from "#adapters/upstream/sse-relay.ts";
import type { Usage } from "#contracts/openai/chat.ts";
import { type AppError, answeredCode } from "#core/errors.ts";
import { contextOf, endFailed, parentOf, type Span, SpanKind, type Tracer } from "../telemetry/tracing.ts";
import type { DeploymentLabels, GenAiOperation } from "./metrics.ts";
import type { InferenceContext, InferenceLogEntry } from "./port.ts";
import type { InferenceRuntime } from "./runtime.ts";
import { type OutgoingRequest, seriesKeyOf, type UpstreamCallee } from "./upstream-client.ts";

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
  /** Calls a replica of the admitted deployment through the runtime's upstream client. */
  send(request: OutgoingRequest): Promise<UpstreamResponse>;
  /** The request's SERVER span: other calls made for it (the classifier's) go under it. */
  readonly span: Span | undefined;
  finish(entry: InferenceLogEntry, usage: Usage | undefined, error: AppError | undefined): void;
}

const unknownDeployment: DeploymentLabels = { deployment: "", deployment_id: "" };

/** A request's own call (upstream-client.ts), with what its series need beside. */
interface ObservedCall extends UpstreamCallee {
  started: number;
  firstTokenMs: number | undefined;
  admitted: boolean;
}

export function observeRequest(runtime: InferenceRuntime, meta: ObservedMeta): RequestObserver {
  const tracer = runtime.tracing?.tracer;
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
  const call: ObservedCall = {
    operation: meta.operation,
    labels: unknownDeployment,
    key: "\u0000",
    parent: span,
    started: performance.now(),
    firstTokenMs: undefined,
    admitted: false,
  };
  const series = runtime.metrics.series;
  return {
    tracing: span?.isRecording() ?? false,
    step: (name, fn) => (span && tracer ? stepInSpan(tracer, span, name, fn) : fn()),
    annotate(attributes) {
      span?.setAttributes(attributes);
    },
    resolved(context) {
      const labels = { deployment: context.deployment.name, deployment_id: context.deployment.id };
      call.labels = labels;
      call.key = seriesKeyOf(labels);
      series.inFlight.get(call.key, () => labels).inc();
      call.admitted = true;
      span?.setAttributes({
        "llm.deployment.id": context.deployment.id,
        "llm.organization.id": context.orgId,
      });
    },
    admission(check, allowed) {
      const decision = allowed ? "allow" : "reject";
      series.admission
        .get(`${call.key}\u0000${check}\u0000${decision}`, () => ({ ...call.labels, check, decision }))
        .inc();
    },
    firstToken() {
      call.firstTokenMs ??= performance.now();
    },
    send: (request) => runtime.upstream.send(request, call),
    span,
    finish(entry, usage, error) {
      recordFinish(runtime, call, entry, usage, error);
      if (span) endRequestSpan(span, call, meta.model, usage, error);
    },
  };
}

/** One lifecycle step in its own span, ended when its promise settles. */
function stepInSpan<T>(tracer: Tracer, span: Span, name: Step, fn: () => T): T {
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
}

/** The request's series: its count, duration, time to first token, tokens and guardrail decisions. */
function recordFinish(
  runtime: InferenceRuntime,
  call: ObservedCall,
  entry: InferenceLogEntry,
  usage: Usage | undefined,
  error: AppError | undefined,
): void {
  const series = runtime.metrics.series;
  const { labels, operation, started } = call;
  const now = performance.now();
  const outcome = error ? "error" : "ok";
  const errorCode = error ? answeredCode(error) : "";
  const key = `${call.key}\u0000${operation}`;
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
  if (call.admitted) series.inFlight.get(call.key, () => labels).dec();
  if (!error && operation !== "embeddings") {
    series.timeToFirstToken
      .get(key, () => ({ ...labels, operation }))
      .observe(((call.firstTokenMs ?? now) - started) / 1000);
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
  recordGuardrails(runtime, labels, call.key, entry);
}

function endRequestSpan(
  span: Span,
  call: ObservedCall,
  model: string,
  usage: Usage | undefined,
  error: AppError | undefined,
): void {
  span.setAttributes({ [ATTR_GEN_AI_RESPONSE_MODEL]: call.labels.deployment || model });
  if (usage) {
    span.setAttributes({
      [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: usage.prompt_tokens,
      [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: usage.completion_tokens,
    });
  }
  if (call.firstTokenMs !== undefined)
    span.setAttribute("gen_ai.response.time_to_first_chunk", (call.firstTokenMs - call.started) / 1000);
  if (error) endFailed(span, Object.assign(new Error(error.message), { code: answeredCode(error) }));
  else span.end();
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
