// What the inference gateway needs from the filtration side. Two implementations: in process (the
// gateways share a process or one PostgreSQL: plain function calls, no HTTP) and over HTTP to
// FILTRATION_URL's /internal/* endpoints with X-Internal-API-Key (an inference gateway apart on a
// database of its own); server/compose.ts chooses.
import type { HostedTarget } from "#adapters/upstream/wire/hosted.ts";
import type { ChatMessage } from "#contracts/openai/chat.ts";
import type { WireId } from "#core/domain.ts";
import type {
  CachePolicy,
  GuardrailsPolicyConfig,
  QuotaPolicy,
  RagPolicy,
  RateLimitPolicy,
} from "#core/policies.ts";
import type { ApplicableBudgets, BudgetStanding } from "../spend/budgets.ts";
import type { DeploymentPrice } from "../spend/prices.ts";

export type { ApplicableBudgets, BudgetStanding, DeploymentPrice };

import type { ConversationItem, ResponseObject } from "#contracts/openai/responses.ts";

export type Unresolved =
  | "invalid_api_key"
  | "model_not_found"
  | "model_not_allowed"
  | "deployment_unavailable";

export type { QuotaPolicy, RateLimitPolicy };

export interface InferenceContext {
  orgId: string;
  /** Empty for a signed-in user calling from the dashboard's playground (no API key). */
  apiKeyId: string;
  keyPrefix: string;
  /** The signed-in user of a playground call; absent for API-key calls. */
  userId?: string | undefined;
  deployment: { id: string; name: string };
  /**
   * Tokens one sequence of the deployment holds (prompt and completion), when its configuration says
   * (services/inference/call-maximum.ts): what a call without max_tokens may use at most.
   */
  contextTokens?: number | undefined;
  /** Base URLs of the ready replicas. */
  endpoints: string[];
  /** Set for a hosted deployment (an `external` pool): how its requests reach the upstream. */
  upstream?: HostedUpstream | undefined;
  rateLimit: RateLimitPolicy | undefined;
  quota: QuotaPolicy | undefined;
  /** The deployment's guardrails policy (CONTRACTS), or undefined when none applies. */
  guardrails: GuardrailsPolicyConfig | undefined;
  rag: RagPolicy | undefined;
  prompt: { template_id: string } | undefined;
  /** Ready replicas of the guardrails policy's classifier deployment, when it names one. */
  classifierEndpoints?: string[] | undefined;
  /**
   * The routing policy's fallbacks that may serve this caller now, in order: running, with a ready
   * replica, and allowed to the caller's key. Absent: no fallbacks.
   */
  fallbacks?: RouteTarget[] | undefined;
  /**
   * false when the routing policy turned prefix affinity off (`prefix_affinity: false`): replicas are
   * chosen by load alone. Absent: on (it matters where a deployment has more than one replica).
   */
  prefixAffinity?: boolean | undefined;
  /** The deployment's prices: each request's cost (services/spend/prices.ts). Absent: unpriced. */
  price?: DeploymentPrice | undefined;
  /** The budgets of the organization and of the key; absent when neither sets a limit. */
  budgets?: ApplicableBudgets | undefined;
  /**
   * Set when the deployment autoscales: a request finding no ready replica waits for one (scale from
   * zero) up to `cold_start_timeout_s`, with at most `max_queued` waiting per gateway process.
   */
  coldStart?: { cold_start_timeout_s: number; max_queued: number } | undefined;
  /** The deployment's cache policy when its mode is not `off` (services/inference/response-cache/). */
  cache?: CachePolicy | undefined;
  /** Ready replicas of the semantic cache's embedding deployment, when the cache policy names one. */
  cacheEmbeddingEndpoints?: string[] | undefined;
}

/**
 * A hosted upstream: the wire adapter of the deployment's engine, the model name it is sent, and the
 * secret and options of the credential it names. Holds a secret: never logged, never in an answer
 * (only the internal resolve endpoint carries it, to an inference gateway apart).
 */
export interface HostedUpstream extends HostedTarget {
  wire: WireId;
}

/** A deployment a request may be sent to, and its ready replicas. */
export interface RouteTarget {
  deployment: { id: string; name: string };
  /** Base URLs of the ready replicas. */
  endpoints: string[];
  /** Set for a hosted deployment: its requests go through a wire adapter. */
  upstream?: HostedUpstream | undefined;
  /** The fallback's prices: a request it serves costs what it charges. Absent: unpriced. */
  price?: DeploymentPrice | undefined;
}

/** Who made a refused call, when the key says so (a revoked key, an unknown model): its log has an owner. */
export interface RefusedCaller {
  orgId: string;
  apiKeyId: string;
  keyPrefix: string;
}

export type Resolution =
  | { ok: true; context: InferenceContext }
  | { ok: false; reason: Unresolved; caller?: RefusedCaller | undefined };

export interface UsageRecord {
  orgId: string;
  deploymentId: string;
  /** Absent for a playground call (no API key). */
  apiKeyId: string | undefined;
  promptTokens: number;
  completionTokens: number;
  /** In the deployment's price currency; absent or 0 when it is unpriced. */
  cost?: number | undefined;
}

export interface InferenceLogEntry {
  /** The log row's id, given by the gateway: a batch written twice (a retry) keeps one row each. */
  id?: string | undefined;
  request_id: string;
  org_id: string | undefined;
  deployment_id: string | undefined;
  api_key_id: string | undefined;
  key_prefix: string | undefined;
  model: string;
  status: number;
  error_code: string | undefined;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Prompt tokens the engine reused (its usage's `prompt_tokens_details.cached_tokens`). */
  cached_tokens?: number | undefined;
  latency_ms: number;
  /** What the request cost at its deployment's prices, in their currency; 0 when unpriced. */
  cost: number;
  /** Until the first token was ready to go out (db/schema/inference-logs.ts); undefined: none was. */
  ttft_ms?: number | undefined;
  /** When the request was made; absent: when the log is written. */
  created_at?: string | undefined;
  stream: boolean;
  guardrails: Record<string, unknown>;
  /** What retrieval did (services/knowledge-base/retrieve.ts RetrievalNote), when it ran. */
  retrieval?: Record<string, unknown> | undefined;
  /** The deployment that answered: the one asked for (deployment_id), or a fallback of its routing policy. */
  served_by_deployment_id?: string | undefined;
  served_by?: string | undefined;
  /** The response cache's part: hit (answered from it, cost 0) or miss; absent when no cache applied. */
  cache?: "hit" | "miss" | undefined;
  /** A hit's answer's tokens that no model computed again. */
  cache_saved_tokens?: number | undefined;
  /** The base URL of the replica that answered, without credentials (log-endpoint.ts). */
  served_by_endpoint?: string | undefined;
}

/** The quota's answer: allowed for `tokens`, and what is left today (absent: no such limit). */
export interface QuotaStanding {
  allowed: boolean;
  resetAt?: string | undefined;
  remainingRequests?: number | undefined;
  remainingTokens?: number | undefined;
  /** Used today so far, as the database counts it (0 when the quota sets no limit). */
  usedRequests?: number | undefined;
  usedTokens?: number | undefined;
}

/** A response of POST /v1/responses kept for GET and `previous_response_id` (db stored_responses). */
export interface StoredResponse {
  id: string;
  orgId: string;
  apiKeyId: string | undefined;
  deploymentId: string | undefined;
  /** The input items the model answered, earlier turns included (instructions are not carried). */
  conversation: ConversationItem[];
  body: ResponseObject;
}

/** A stored response looked up with the caller's API key, in the key's organization only. */
export type KeyedLookup =
  | { ok: true; response: StoredResponse }
  | { ok: false; reason: "invalid_api_key" | "not_found" };

export interface ResponseStorePort {
  save(record: StoredResponse): Promise<void>;
  find(apiKey: string, id: string): Promise<KeyedLookup>;
  delete(apiKey: string, id: string): Promise<{ ok: true } | Extract<KeyedLookup, { ok: false }>>;
}

export interface FiltrationPort {
  /** Stored responses of the Responses API (services/responses/store.ts). */
  responses: ResponseStorePort;
  resolve(apiKey: string, model: string): Promise<Resolution>;
  /** The deployments a key may call (GET /v1/models). */
  models(apiKey: string): Promise<{ id: string; created: number }[] | undefined>;
  checkQuota(orgId: string, deploymentId: string, tokens: number): Promise<QuotaStanding>;
  /** May one more call of this key (or the organization's playground) start under their budgets? */
  checkBudget(orgId: string, apiKeyId: string | undefined): Promise<BudgetStanding>;
  trackUsage(records: UsageRecord[]): Promise<void>;
  processPrompt(
    context: InferenceContext,
    messages: ChatMessage[],
  ): Promise<{
    messages: ChatMessage[];
    retrieval?: Record<string, unknown> | undefined;
    /** A retrieved passage was blocked by this guardrail (input.indirect_injection). */
    blockedBy?: string | undefined;
  }>;
  writeLogs(entries: InferenceLogEntry[]): Promise<void>;
}
