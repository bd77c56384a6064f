// The first steps of every inference request, chat or embeddings, in the specification's order: (1)
// the key, (2) the deployment's context, (3) rate limits, (4) the organization's quota and the
// budgets of the key and the organization; and what ends every request: its inference log entry,
// usage and cost, written off the hot path (9). Metrics and spans
// come with it (observe.ts): an endpoint that starts with startRequest and calls the replica with
// `request.send` is measured and traced like chat.
import type { UpstreamRequest, UpstreamResponse } from "#adapters/upstream/send.ts";
import { cachedTokensOf } from "#adapters/upstream/sse-relay.ts";
import type { Usage } from "#contracts/openai/chat.ts";
import { AppError, answeredCode } from "#core/errors.ts";
import type { RateLimits } from "#core/ports/rate-limiter.ts";
import { endpointForLog } from "../inference-logs/endpoint.ts";
import { costOf } from "../spend/prices.ts";
import { allowanceLines, type Held, reserveAllowances } from "./allowances.ts";
import type { AnswerMeta } from "./answer-meta.ts";
import { maximumTokens } from "./call-maximum.ts";
import type { GenAiOperation } from "./metrics.ts";
import { observeRequest, type RequestObserver } from "./observe.ts";
import type { InferenceContext, InferenceLogEntry, Resolution, RouteTarget, Unresolved } from "./port.ts";
import type { InferenceRuntime } from "./runtime.ts";

export const unresolved: Record<Unresolved, () => AppError> = {
  invalid_api_key: () =>
    new AppError("unauthenticated", "invalid API key", { openai_code: "invalid_api_key" }),
  model_not_found: () =>
    new AppError("not_found", "the model does not exist", { param: "model", openai_code: "model_not_found" }),
  model_not_allowed: () =>
    new AppError("forbidden", "this API key may not use this model", {
      param: "model",
      openai_code: "model_not_allowed",
    }),
  deployment_unavailable: () =>
    new AppError("unavailable", "the deployment has no ready replica", {
      openai_code: "deployment_unavailable",
    }),
};

const minute = 60_000;

export function limitsOf(context: InferenceContext): RateLimits | undefined {
  const policy = context.rateLimit;
  if (!policy?.requests_per_minute && !policy?.tokens_per_minute) return undefined;
  return {
    requests: policy.requests_per_minute
      ? { limit: policy.requests_per_minute, periodMs: minute }
      : undefined,
    tokens: policy.tokens_per_minute ? { limit: policy.tokens_per_minute, periodMs: minute } : undefined,
  };
}

export const rateKey = (context: InferenceContext) =>
  `${context.apiKeyId || `user:${context.userId}`}:${context.deployment.id}`;

export interface InferenceRequest {
  entry: InferenceLogEntry;
  /** Steps (1) to (4); throws the AppError the client gets. */
  admit(input: {
    apiKey: string | undefined;
    /** Steps (1) and (2) done by the caller (the dashboard's playground). */
    resolved?: Resolution | undefined;
    /** Estimated, charged to the token limit now and corrected by `finish` with the real usage. */
    promptTokens: number;
    /**
     * The call's max_tokens, when it sets one: reserved with the prompt (rate limit, quota, budgets);
     * without one, what the deployment's context leaves (call-maximum.ts).
     */
    maxTokens?: number | undefined;
    /** The client went away: a request waiting for a replica stops waiting. */
    signal?: AbortSignal | undefined;
    /**
     * CPU work that needs the deployment's context but not admission's answer (chat's input scan):
     * run while the rate limiter's round trip is under way when it has one, else once the request
     * is admitted. Called at most once; what it throws is thrown after admission's own refusals.
     */
    meanwhile?: ((context: InferenceContext) => void) | undefined;
  }): Promise<InferenceContext>;
  /** Logs the request (and its usage, when it has one); call it exactly once. */
  finish(usage: Usage | undefined, error?: AppError): void;
  /** Calls a replica of the admitted deployment (sendUpstream), traced and measured per replica. */
  send(request: Omit<UpstreamRequest, "headers">): Promise<UpstreamResponse>;
  /**
   * The deployment that answered (routing.ts) and the replica's base URL it was sent to: the log
   * records both, and the answer names the deployment (`servedBy`) when a fallback answered for
   * the deployment asked for; the request then costs the fallback's prices (a hosted model's list
   * price, a self-hosted one's own), not the asked one's.
   */
  served(deployment: RouteTarget["deployment"], endpoint: string, price?: RouteTarget["price"]): void;
  /**
   * The response cache's part: a hit is logged with the answer's tokens as saved, and costs and
   * consumes nothing (tokens 0, cost 0); it still counted as a request at admission.
   */
  cache(outcome: "hit" | "miss", saved?: Usage | undefined): void;
  /** A lifecycle step after admission (guardrails, prompt processing), in its own span. */
  step: RequestObserver["step"];
  /** The first token is ready to go out (time to first token; default: when the request ends). */
  firstToken(): void;
  /** GenAI attributes on the request's span; `observer.tracing` says whether anyone records them. */
  observer: RequestObserver;
}

export interface RequestMeta {
  requestId: string;
  model: string;
  /** gen_ai.operation.name: the metrics' `operation` label and the span's name. */
  operation: GenAiOperation;
  stream: boolean;
  /** Filled with what the answer says beside its body (a refusal's too): answer-meta.ts. */
  answer: AnswerMeta;
  /** The caller's request headers: an incoming `traceparent` continues the caller's trace. */
  incoming?: Headers | undefined;
}

export function startRequest(runtime: InferenceRuntime, meta: RequestMeta): InferenceRequest {
  const started = performance.now();
  const observer = observeRequest(runtime, meta);
  const entry: InferenceLogEntry = {
    id: Bun.randomUUIDv7(),
    request_id: meta.requestId,
    org_id: undefined,
    deployment_id: undefined,
    api_key_id: undefined,
    key_prefix: undefined,
    model: meta.model,
    status: 200,
    error_code: undefined,
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    latency_ms: 0,
    cost: 0,
    stream: meta.stream,
    guardrails: {},
  };
  let context: InferenceContext | undefined;
  let firstTokenAt: number | undefined;
  let limits: RateLimits | undefined;
  let charged = 0;
  /** The prompt's estimate within `charged`: what a call ending without usage keeps charged. */
  let chargedPrompt = 0;
  let held: Held | undefined;
  let leaveLoad: (() => void) | undefined;
  /** Set when a fallback answered: its prices, which may be none. */
  let servedPrice: { price: RouteTarget["price"] } | undefined;
  const answer = meta.answer;

  return {
    entry,
    observer,
    step: observer.step,
    firstToken() {
      firstTokenAt ??= performance.now();
      observer.firstToken();
    },
    send: observer.send,
    cache(outcome, saved) {
      entry.cache = outcome;
      answer.cache = outcome;
      if (outcome === "hit") entry.cache_saved_tokens = saved?.total_tokens ?? 0;
    },
    served(deployment, endpoint, price) {
      entry.served_by_deployment_id = deployment.id;
      entry.served_by = deployment.name;
      entry.served_by_endpoint = endpointForLog(endpoint);
      if (!context || deployment.id === context.deployment.id) return;
      servedPrice = { price };
      answer.servedBy = deployment.name;
      runtime.metrics.fallbacks.inc({
        deployment: context.deployment.name,
        deployment_id: context.deployment.id,
        served_by: deployment.name,
      });
    },
    async admit(input) {
      let resolution = input.resolved;
      if (!resolution) {
        const apiKey = input.apiKey;
        if (!apiKey) throw unresolved.invalid_api_key();
        resolution = await observer.step("key and context", () => runtime.resolve(apiKey, meta.model));
      }
      if (!resolution.ok) {
        // Logged where the key's owner looks: a revoked key, an unknown or stopped model.
        if (resolution.caller) {
          entry.org_id = resolution.caller.orgId;
          entry.api_key_id = resolution.caller.apiKeyId || undefined;
          entry.key_prefix = resolution.caller.keyPrefix;
        }
        throw unresolved[resolution.reason]();
      }
      context = resolution.context;
      observer.resolved(context);
      entry.org_id = context.orgId;
      entry.deployment_id = context.deployment.id;
      entry.api_key_id = context.apiKeyId || undefined;
      entry.key_prefix = context.keyPrefix;

      const resolvedContext = context;
      let meanwhile = input.meanwhile;
      let failed: { error: unknown } | undefined;
      const runMeanwhile = () => {
        const work = meanwhile;
        meanwhile = undefined;
        try {
          work?.(resolvedContext);
        } catch (error) {
          failed = { error };
        }
      };

      limits = limitsOf(context);
      if (limits) {
        // The call's maximum (its prompt and max_tokens, or what the context leaves): parallel calls
        // cannot pass the limit by their completions; `finish` gives back what was not used. Only the
        // prompt must fit; the completion may cross the limit (gcra.ts `admit`).
        charged = maximumTokens(input, context.contextTokens);
        chargedPrompt = Math.min(input.promptTokens, charged);
        const key = rateKey(context);
        const chosen = limits;
        const taking = observer.step("rate limits", () =>
          runtime.limiter.take(key, chosen, charged, chargedPrompt),
        );
        // The command is on its way (adapters/redis/client.ts writes it at once): the round trip and
        // the work overlap instead of adding up.
        if (runtime.limiter.remote) runMeanwhile();
        const decision = await taking;
        observer.admission("rate_limit", decision.allowed);
        if (decision.storeUnavailable) {
          charged = 0;
          // The policy's stated choice (docs/failure-modes.md); Redis is retried at most once a second.
          if (context.rateLimit?.on_store_error === "closed") {
            answer.retryAfterS = 1;
            throw new AppError("unavailable", "the rate-limit counters are unreachable; retry shortly", {
              openai_code: "deployment_unavailable",
            });
          }
        }
        answer.rateLimit = decision;
        if (!decision.allowed) {
          charged = 0;
          answer.retryAfterS = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
          const who = context.apiKeyId ? "key" : "user";
          throw new AppError("rate_limited", `rate limit reached for this ${who} and model`, {
            openai_code: "rate_limit_exceeded",
          });
        }
      }

      // (4) quota and budgets: the call's maximum reserved, settled in `finish`.
      if (context.quota || context.budgets) {
        const { orgId, deployment, apiKeyId } = context;
        const admitting = context;
        const reserved = await observer.step("quota", async () => {
          const [quota, budget] = await Promise.all([
            admitting.quota ? runtime.quotaStanding(orgId, deployment.id) : undefined,
            admitting.budgets ? runtime.budgetStanding(orgId, apiKeyId || undefined) : undefined,
          ]);
          const lines = allowanceLines(
            admitting,
            { promptTokens: input.promptTokens, maxTokens: input.maxTokens },
            { quota, budget },
            new Date(),
          );
          return reserveAllowances(runtime.reservations, lines);
        });
        if (!reserved.ok) {
          observer.admission(reserved.measure === "cost" ? "budget" : "quota", false);
          throw new AppError("rate_limited", reserved.message, { openai_code: "insufficient_quota" });
        }
        if (context.quota) observer.admission("quota", true);
        if (context.budgets) observer.admission("budget", true);
        held = reserved.held;
      }

      // No ready replica of a deployment that autoscales: wait for one (it may be scaled to zero).
      if (context.endpoints.length === 0 && context.coldStart && input.apiKey) {
        context = await waitForReplica(
          runtime,
          context,
          input.apiKey,
          meta.model,
          answer,
          observer,
          input.signal,
        );
      }
      runMeanwhile();
      if (failed) throw failed.error;
      leaveLoad = runtime.load.enter(context.deployment.id);
      return context;
    },
    finish(computed, error) {
      // A cache hit ran no model: nothing is consumed or charged (cache_saved_tokens says what it saved).
      const usage = entry.cache === "hit" && computed ? nothingComputed : computed;
      leaveLoad?.();
      if (context && usage) runtime.load.tokens(context.deployment.id, usage.completion_tokens);
      entry.latency_ms = Math.round((performance.now() - started) * 100) / 100;
      // Only a request that produced tokens has a time to first token (db/schema/inference-logs.ts).
      if (firstTokenAt !== undefined) entry.ttft_ms = Math.round((firstTokenAt - started) * 100) / 100;
      if (error) {
        entry.status = runtime.statusOf(error);
        entry.error_code = answeredCode(error);
      }
      if (usage) {
        entry.prompt_tokens = usage.prompt_tokens;
        entry.completion_tokens = usage.completion_tokens;
        entry.total_tokens = usage.total_tokens;
        entry.cached_tokens = cachedTokensOf(usage);
        entry.cost =
          entry.cache === "hit"
            ? 0
            : costOf(servedPrice ? servedPrice.price : context?.price, {
                promptTokens: usage.prompt_tokens,
                cachedTokens: entry.cached_tokens,
                completionTokens: usage.completion_tokens,
                latencyMs: entry.latency_ms,
                replicas: context?.endpoints.length ?? 1,
              });
      }
      held?.settle(usage, entry.cost);
      runtime.logs.add(entry);
      observer.finish(entry, usage, error);
      if (context && usage) {
        runtime.usage.add({
          orgId: context.orgId,
          deploymentId: context.deployment.id,
          apiKeyId: context.apiKeyId || undefined,
          promptTokens: usage.prompt_tokens,
          completionTokens: usage.completion_tokens,
          cost: entry.cost,
        });
      }
      // Settled with the real usage; a call that ended without any (refused by the replica, failed,
      // aborted) gives back its reserved completion and keeps only its prompt's estimate charged.
      if (context && limits?.tokens && charged > 0) {
        const delta = usage ? usage.total_tokens - charged : chargedPrompt - charged;
        void runtime.limiter.correct(rateKey(context), limits, delta).catch(() => {});
      }
    },
  };
}

const nothingComputed: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/** Holds the request until the deployment has a ready replica (services/orchestration/autoscaling/cold-start.ts). */
async function waitForReplica(
  runtime: InferenceRuntime,
  context: InferenceContext,
  apiKey: string,
  model: string,
  answer: AnswerMeta,
  observer: RequestObserver,
  signal: AbortSignal | undefined,
): Promise<InferenceContext> {
  const policy = context.coldStart as NonNullable<InferenceContext["coldStart"]>;
  const outcome = await observer.step("waiting for a replica", () =>
    runtime.coldStart.wait(
      context.deployment.id,
      { timeoutMs: policy.cold_start_timeout_s * 1000, maxQueued: policy.max_queued },
      async () => {
        // Past the context cache: the replica is seen within one poll of being ready.
        const fresh = await runtime.port.resolve(apiKey, model);
        return fresh.ok ? fresh.context.endpoints : [];
      },
      signal,
    ),
  );
  if (!outcome.ok) {
    answer.retryAfterS = outcome.retryAfterS;
    throw new AppError("unavailable", outcome.message, { openai_code: "deployment_unavailable" });
  }
  return { ...context, endpoints: outcome.endpoints };
}
