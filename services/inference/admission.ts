// The first steps of every inference request, chat or embeddings, in the specification's order: (1)
// the key, (2) the deployment's context, (3) rate limits, (4) the organization's quota and the
// budgets of the key and the organization; and what ends every request: its inference log entry,
// usage and cost, written off the hot path (9). Metrics and spans
// come with it (observe.ts): an endpoint that starts with startRequest and calls the replica with
// `request.send` is measured and traced like chat.
import { cachedTokensOf } from "#adapters/upstream/sse-relay.ts";
import type { Usage } from "#contracts/openai/chat.ts";
import { AppError, answeredCode } from "#core/errors.ts";
import type { RateLimits } from "#core/ports/rate-limiter.ts";
import { costOf } from "../spend/prices.ts";
import { allowanceLines, type Held, reserveAllowances } from "./allowances.ts";
import type { AnswerMeta } from "./answer-meta.ts";
import { maximumTokens } from "./call-maximum.ts";
import { endpointForLog } from "./log-endpoint.ts";
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

export interface AdmitInput {
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

/**
 * One request's way through the lifecycle: its log entry, what admission charged and holds, and the
 * steps below as methods. A class rather than an object of closures: one allocation per request.
 */
export class InferenceRequest {
  readonly started = performance.now();
  readonly observer: RequestObserver;
  readonly entry: InferenceLogEntry;
  readonly answer: AnswerMeta;
  /** A lifecycle step after admission (guardrails, prompt processing), in its own span. */
  readonly step: RequestObserver["step"];
  /** Calls a replica of the admitted deployment (sendUpstream), traced and measured per replica. */
  readonly send: RequestObserver["send"];
  context: InferenceContext | undefined;
  firstTokenAt: number | undefined;
  limits: RateLimits | undefined;
  /** The tokens charged to the rate limit at admission. */
  charged = 0;
  /** The prompt's estimate within `charged`: what a call ending without usage keeps charged. */
  chargedPrompt = 0;
  held: Held | undefined;
  leaveLoad: (() => void) | undefined;
  /** Set when a fallback answered: its prices, which may be none. */
  servedPrice: { price: RouteTarget["price"] } | undefined;

  constructor(
    readonly runtime: InferenceRuntime,
    meta: RequestMeta,
  ) {
    this.observer = observeRequest(runtime, meta);
    this.step = this.observer.step;
    this.send = this.observer.send;
    this.answer = meta.answer;
    this.entry = newLogEntry(meta);
  }

  /** Steps (1) to (4); throws the AppError the client gets. */
  admit(input: AdmitInput): Promise<InferenceContext> {
    return admit(this, input);
  }

  /** Step (9): logs the request (and its usage, when it has one); call it exactly once. */
  finish(usage: Usage | undefined, error?: AppError): void {
    logRequest(this, usage, error);
  }

  /** The first token is ready to go out (time to first token; default: when the request ends). */
  firstToken(): void {
    this.firstTokenAt ??= performance.now();
    this.observer.firstToken();
  }

  /**
   * The response cache's part: a hit is logged with the answer's tokens as saved, and costs and
   * consumes nothing (tokens 0, cost 0); it still counted as a request at admission.
   */
  cache(outcome: "hit" | "miss", saved?: Usage | undefined): void {
    this.entry.cache = outcome;
    this.answer.cache = outcome;
    if (outcome === "hit") this.entry.cache_saved_tokens = saved?.total_tokens ?? 0;
  }

  /**
   * The deployment that answered (routing.ts) and the replica's base URL it was sent to: the log
   * records both, and the answer names the deployment (`servedBy`) when a fallback answered for the
   * deployment asked for; the request then costs the fallback's prices (a hosted model's list price,
   * a self-hosted one's own), not the asked one's.
   */
  served(deployment: RouteTarget["deployment"], endpoint: string, price?: RouteTarget["price"]): void {
    const { entry, context } = this;
    entry.served_by_deployment_id = deployment.id;
    entry.served_by = deployment.name;
    entry.served_by_endpoint = endpointForLog(endpoint);
    if (!context || deployment.id === context.deployment.id) return;
    this.servedPrice = { price };
    this.answer.servedBy = deployment.name;
    this.runtime.metrics.fallbacks.inc({
      deployment: context.deployment.name,
      deployment_id: context.deployment.id,
      served_by: deployment.name,
    });
  }
}

export function startRequest(runtime: InferenceRuntime, meta: RequestMeta): InferenceRequest {
  return new InferenceRequest(runtime, meta);
}

function newLogEntry(meta: RequestMeta): InferenceLogEntry {
  return {
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
}

/** Steps (1) to (4) in their order, then the wait for a replica of a deployment scaled to zero. */
async function admit(request: InferenceRequest, input: AdmitInput): Promise<InferenceContext> {
  const resolved = await resolveContext(request, input);
  const meanwhile = new Meanwhile(input.meanwhile, resolved);
  await checkRateLimits(request, resolved, input, meanwhile);
  await reserveQuotaAndBudgets(request, resolved, input);
  const context = await waitForReplica(request, resolved, input);
  request.context = context;
  meanwhile.run();
  meanwhile.rethrow();
  request.leaveLoad = request.runtime.load.enter(context.deployment.id);
  return context;
}

/** Step (1): a request without a key is refused before anything is looked up. */
export function requireKey(apiKey: string | undefined): string {
  if (!apiKey) throw unresolved.invalid_api_key();
  return apiKey;
}

/**
 * Step (2): the key's deployment context (or the one the caller resolved). A refusal is logged where
 * the key's owner looks: a revoked key, an unknown or stopped model.
 */
export async function resolveContext(
  request: InferenceRequest,
  input: AdmitInput,
): Promise<InferenceContext> {
  const { entry, runtime } = request;
  let resolution = input.resolved;
  if (!resolution) {
    const apiKey = requireKey(input.apiKey);
    resolution = await request.step("key and context", () => runtime.resolve(apiKey, entry.model));
  }
  if (!resolution.ok) {
    if (resolution.caller) {
      entry.org_id = resolution.caller.orgId;
      entry.api_key_id = resolution.caller.apiKeyId || undefined;
      entry.key_prefix = resolution.caller.keyPrefix;
    }
    throw unresolved[resolution.reason]();
  }
  const { context } = resolution;
  request.context = context;
  request.observer.resolved(context);
  entry.org_id = context.orgId;
  entry.deployment_id = context.deployment.id;
  entry.api_key_id = context.apiKeyId || undefined;
  entry.key_prefix = context.keyPrefix;
  return context;
}

/** The caller's `meanwhile` work, run once; what it threw is thrown after admission's own refusals. */
class Meanwhile {
  private failed: { error: unknown } | undefined;
  constructor(
    private work: AdmitInput["meanwhile"],
    private readonly context: InferenceContext,
  ) {}
  run(): void {
    const work = this.work;
    this.work = undefined;
    try {
      work?.(this.context);
    } catch (error) {
      this.failed = { error };
    }
  }
  rethrow(): void {
    if (this.failed) throw this.failed.error;
  }
}

/**
 * Step (3): the rate limits of the key and deployment. The call's maximum (its prompt and max_tokens,
 * or what the context leaves) is charged, so parallel calls cannot pass the limit by their
 * completions; `finish` gives back what was not used. Only the prompt must fit; the completion may
 * cross the limit (gcra.ts `admit`).
 */
export async function checkRateLimits(
  request: InferenceRequest,
  context: InferenceContext,
  input: AdmitInput,
  meanwhile: Pick<Meanwhile, "run">,
): Promise<void> {
  const { runtime, answer } = request;
  const limits = limitsOf(context);
  request.limits = limits;
  if (!limits) return;
  const charged = maximumTokens(input, context.contextTokens);
  request.charged = charged;
  request.chargedPrompt = Math.min(input.promptTokens, charged);
  const taking = request.step("rate limits", () =>
    runtime.limiter.take(rateKey(context), limits, charged, request.chargedPrompt),
  );
  // The command is on its way (adapters/redis/client.ts writes it at once): the round trip and the
  // work overlap instead of adding up.
  if (runtime.limiter.remote) meanwhile.run();
  const decision = await taking;
  request.observer.admission("rate_limit", decision.allowed);
  if (decision.storeUnavailable) {
    request.charged = 0;
    // The policy's stated choice (docs/failure-modes.md); Redis is retried at most once a second.
    if (context.rateLimit?.on_store_error === "closed") {
      answer.retryAfterS = 1;
      throw new AppError("unavailable", "the rate-limit counters are unreachable; retry shortly", {
        openai_code: "deployment_unavailable",
      });
    }
  }
  answer.rateLimit = decision;
  if (decision.allowed) return;
  request.charged = 0;
  answer.retryAfterS = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
  const who = context.apiKeyId ? "key" : "user";
  throw new AppError("rate_limited", `rate limit reached for this ${who} and model`, {
    openai_code: "rate_limit_exceeded",
  });
}

/**
 * Step (4): the organization's quota and the budgets of the key and the organization, their
 * standings read together; the call's maximum is reserved and settled in `finish`.
 */
export async function reserveQuotaAndBudgets(
  request: InferenceRequest,
  context: InferenceContext,
  input: AdmitInput,
): Promise<void> {
  if (!context.quota && !context.budgets) return;
  const { runtime, observer } = request;
  const { orgId, deployment, apiKeyId } = context;
  const reserved = await request.step("quota", async () => {
    const [quota, budget] = await Promise.all([
      context.quota ? runtime.quotaStanding(orgId, deployment.id) : undefined,
      context.budgets ? runtime.budgetStanding(orgId, apiKeyId || undefined) : undefined,
    ]);
    const lines = allowanceLines(
      context,
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
  request.held = reserved.held;
}

/**
 * No ready replica of a deployment that autoscales: hold the request until one is ready (it may be
 * scaled to zero; services/orchestration/autoscaling/cold-start.ts). Else the context as it is.
 */
export async function waitForReplica(
  request: InferenceRequest,
  context: InferenceContext,
  input: AdmitInput,
): Promise<InferenceContext> {
  const policy = context.coldStart;
  const apiKey = input.apiKey;
  if (context.endpoints.length > 0 || !policy || !apiKey) return context;
  const { runtime, entry } = request;
  const outcome = await request.step("waiting for a replica", () =>
    runtime.coldStart.wait(
      context.deployment.id,
      { timeoutMs: policy.cold_start_timeout_s * 1000, maxQueued: policy.max_queued },
      async () => {
        // Past the context cache: the replica is seen within one poll of being ready.
        const fresh = await runtime.port.resolve(apiKey, entry.model);
        return fresh.ok ? fresh.context.endpoints : [];
      },
      input.signal,
    ),
  );
  if (!outcome.ok) {
    request.answer.retryAfterS = outcome.retryAfterS;
    throw new AppError("unavailable", outcome.message, { openai_code: "deployment_unavailable" });
  }
  return { ...context, endpoints: outcome.endpoints };
}

/**
 * Step (9): the request's log entry, usage and cost, written off the hot path (the batchers); what
 * admission held is settled with the real usage.
 */
export function logRequest(request: InferenceRequest, computed: Usage | undefined, error?: AppError): void {
  const { entry, runtime, context } = request;
  // A cache hit ran no model: nothing is consumed or charged (cache_saved_tokens says what it saved).
  const usage = entry.cache === "hit" && computed ? nothingComputed : computed;
  request.leaveLoad?.();
  if (context && usage) runtime.load.tokens(context.deployment.id, usage.completion_tokens);
  entry.latency_ms = Math.round((performance.now() - request.started) * 100) / 100;
  // Only a request that produced tokens has a time to first token (db/schema/inference-logs.ts).
  if (request.firstTokenAt !== undefined)
    entry.ttft_ms = Math.round((request.firstTokenAt - request.started) * 100) / 100;
  if (error) {
    entry.status = runtime.statusOf(error);
    entry.error_code = answeredCode(error);
  }
  if (usage) recordUsage(request, usage);
  request.held?.settle(usage, entry.cost);
  runtime.logs.add(entry);
  request.observer.finish(entry, usage, error);
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
  settleRateLimit(request, usage);
}

/** The usage and its cost on the log entry: the served deployment's prices (a fallback's own). */
function recordUsage(request: InferenceRequest, usage: Usage): void {
  const { entry, context, servedPrice } = request;
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

/**
 * The token limit settled with the real usage; a call that ended without any (refused by the
 * replica, failed, aborted) gives back its reserved completion and keeps only its prompt's estimate.
 */
function settleRateLimit(request: InferenceRequest, usage: Usage | undefined): void {
  const { context, limits, charged } = request;
  if (!context || !limits?.tokens || charged <= 0) return;
  const delta = usage ? usage.total_tokens - charged : request.chargedPrompt - charged;
  void request.runtime.limiter.correct(rateKey(context), limits, delta).catch(() => {});
}

const nothingComputed: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
