// The inference gateway's FiltrationPort when the filtration gateway runs in another process and the
// inference gateway has no shared PostgreSQL (SERVICES without `filtration`, no DATABASE_URL,
// FILTRATION_URL set; on a shared PostgreSQL it reads the database itself, server/compose.ts): its
// /internal/* endpoints over HTTP with X-Internal-API-Key. The runtime caches contexts, so a filtration
// side that cannot be reached leaves known contexts serving while new ones fail closed; a deployment
// with a prompt template or retrieval calls /internal/prompt/process on every request.
// In server/, not adapters/: it is the client side of this platform's own internal HTTP API (the
// server side is routes/filtration/internal/), and the port it implements, with the policy, message
// and response types it carries, is declared in services/, above adapters.

import type { WireId } from "#adapters/upstream/wire/index.ts";
import type { ChatMessage } from "#contracts/openai/chat.ts";
import { AppError } from "#core/errors.ts";
import type { GuardrailsPolicyConfig, RagPolicy } from "#core/policies.ts";
import { BatchRefused } from "#services/inference/batcher.ts";
import type {
  BudgetStanding,
  FiltrationPort,
  HostedUpstream,
  InferenceContext,
  Resolution,
  Unresolved,
} from "#services/inference/port.ts";
import { fromWire, type StoredResponseWire, toWire } from "#services/responses/wire.ts";

export interface HttpFiltrationOptions {
  /** The filtration gateway's base URL, e.g. http://filtration:8000. */
  baseUrl: string;
  internalApiKey: string;
  /** Per call; the hot path must not wait long on a side that is down. */
  timeoutMs?: number;
}

const unreachable = (why: string) =>
  new AppError("unavailable", "the filtration service cannot be reached", {
    openai_code: "service_unavailable",
    cause: why,
  });

/** A hosted deployment's upstream as /internal/context/resolve writes it. */
interface UpstreamBody {
  wire: WireId;
  model: string;
  api_key?: string;
  options?: Record<string, string>;
}

const upstreamOf = (u: UpstreamBody | undefined): HostedUpstream | undefined =>
  u && {
    wire: u.wire,
    model: u.model,
    ...(u.api_key ? { apiKey: u.api_key } : {}),
    ...(u.options ? { options: u.options } : {}),
  };

interface ResolvedBody {
  valid: true;
  deployment: { id: string; name: string };
  endpoints: string[];
  upstream?: UpstreamBody;
  /** {} when no policy applies. */
  guardrail_config: GuardrailsPolicyConfig;
  rag_config: RagPolicy | { collection_ids?: undefined };
  rate_limit: InferenceContext["rateLimit"] | null;
  quota: InferenceContext["quota"] | null;
  prompt: InferenceContext["prompt"] | null;
  org_id: string;
  api_key_id: string;
  key_prefix: string;
  classifier_endpoints?: string[];
  fallbacks?: {
    deployment: { id: string; name: string };
    endpoints: string[];
    upstream?: UpstreamBody;
    price?: InferenceContext["price"];
  }[];
  prefix_affinity?: boolean;
  price?: InferenceContext["price"];
  budgets?: InferenceContext["budgets"];
  cold_start?: InferenceContext["coldStart"];
  cache?: InferenceContext["cache"];
  cache_embedding_endpoints?: string[];
  context_tokens?: number;
}

const nonEmpty = <T extends object>(o: T): T | undefined => (Object.keys(o).length > 0 ? o : undefined);

export function httpFiltration(options: HttpFiltrationOptions): FiltrationPort {
  const base = options.baseUrl.replace(/\/+$/, "");
  const timeoutMs = options.timeoutMs ?? 2000;

  async function post<T>(path: string, body: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-internal-api-key": options.internalApiKey },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw unreachable(error instanceof Error ? error.message : String(error));
    }
    if (!response.ok) {
      const text = await response.text().catch(() => "");
      // A refusal of what we sent is our bug, not an outage: say so rather than retry forever.
      if (response.status >= 400 && response.status < 500) {
        throw new AppError(
          "internal",
          `filtration ${path} refused the call (${response.status}): ${text.slice(0, 200)}`,
          { refused: true },
        );
      }
      throw unreachable(`${path} answered ${response.status}`);
    }
    return (await response.json()) as T;
  }

  /** A batch the filtration side refused (4xx) is dropped by the batcher rather than sent again. */
  async function postBatch(path: string, body: unknown): Promise<void> {
    try {
      await post(path, body);
    } catch (error) {
      if (error instanceof AppError && error.details?.refused) throw new BatchRefused(error.message);
      throw error;
    }
  }

  return {
    responses: {
      async save(r) {
        await post("/internal/responses/save", toWire(r));
      },
      async find(apiKey, id) {
        const body = await post<
          | { found: false; reason: "invalid_api_key" | "not_found" }
          | { found: true; response: StoredResponseWire }
        >("/internal/responses/find", { api_key: apiKey, id });
        if (!body.found) return { ok: false, reason: body.reason };
        return { ok: true, response: fromWire(body.response) };
      },
      async delete(apiKey, id) {
        const body = await post<{ deleted: boolean; reason?: "invalid_api_key" | "not_found" }>(
          "/internal/responses/delete",
          { api_key: apiKey, id },
        );
        return body.deleted ? { ok: true } : { ok: false, reason: body.reason ?? "not_found" };
      },
    },
    async resolve(apiKey, model): Promise<Resolution> {
      const body = await post<
        | ResolvedBody
        | {
            valid: false;
            reason?: Unresolved;
            caller?: { org_id: string; api_key_id: string; key_prefix: string };
          }
      >("/internal/context/resolve", {
        api_key: apiKey,
        model,
      });
      if (!body.valid) {
        const who = body.caller;
        return {
          ok: false,
          reason: body.reason ?? "invalid_api_key",
          caller: who && { orgId: who.org_id, apiKeyId: who.api_key_id, keyPrefix: who.key_prefix },
        };
      }
      return {
        ok: true,
        context: {
          orgId: body.org_id,
          apiKeyId: body.api_key_id,
          keyPrefix: body.key_prefix,
          deployment: { id: body.deployment.id, name: body.deployment.name },
          endpoints: body.endpoints,
          ...(body.upstream ? { upstream: upstreamOf(body.upstream) } : {}),
          rateLimit: body.rate_limit ?? undefined,
          quota: body.quota ?? undefined,
          guardrails: nonEmpty(body.guardrail_config),
          rag: body.rag_config.collection_ids ? body.rag_config : undefined,
          prompt: body.prompt ?? undefined,
          classifierEndpoints: body.classifier_endpoints,
          ...(body.fallbacks?.length
            ? {
                fallbacks: body.fallbacks.map((f) => ({
                  deployment: f.deployment,
                  endpoints: f.endpoints,
                  ...(f.upstream ? { upstream: upstreamOf(f.upstream) } : {}),
                  ...(f.price ? { price: f.price } : {}),
                })),
              }
            : {}),
          ...(body.prefix_affinity === false ? { prefixAffinity: false } : {}),
          ...(body.price ? { price: body.price } : {}),
          ...(body.budgets ? { budgets: body.budgets } : {}),
          coldStart: body.cold_start,
          ...(body.cache ? { cache: body.cache } : {}),
          ...(body.cache_embedding_endpoints
            ? { cacheEmbeddingEndpoints: body.cache_embedding_endpoints }
            : {}),
          ...(body.context_tokens ? { contextTokens: body.context_tokens } : {}),
        },
      };
    },
    async models(apiKey) {
      const body = await post<{ valid: boolean; data?: { id: string; created: number }[] }>(
        "/internal/context/models",
        { api_key: apiKey },
      );
      return body.valid ? (body.data ?? []) : undefined;
    },
    async checkQuota(orgId, deploymentId, tokens) {
      const body = await post<{
        allowed: boolean;
        reset_at?: string;
        remaining_requests?: number;
        remaining_tokens?: number;
        used_requests?: number;
        used_tokens?: number;
      }>("/internal/policy/check_quota", { org_id: orgId, deployment_id: deploymentId, tokens });
      return {
        allowed: body.allowed,
        resetAt: body.reset_at,
        remainingRequests: body.remaining_requests,
        remainingTokens: body.remaining_tokens,
        usedRequests: body.used_requests,
        usedTokens: body.used_tokens,
      };
    },
    async checkBudget(orgId, apiKeyId) {
      return post<BudgetStanding>("/internal/policy/check_budget", {
        org_id: orgId,
        ...(apiKeyId ? { api_key_id: apiKeyId } : {}),
      });
    },
    async trackUsage(records) {
      if (records.length === 0) return;
      await postBatch("/internal/policy/track_usage", {
        records: records.map((r) => ({
          org_id: r.orgId,
          deployment_id: r.deploymentId,
          api_key_id: r.apiKeyId,
          prompt_tokens: r.promptTokens,
          completion_tokens: r.completionTokens,
          ...(r.cost ? { cost: r.cost } : {}),
        })),
      });
    },
    async processPrompt(context, messages) {
      const processed = await post<{
        messages: ChatMessage[];
        retrieval?: Record<string, unknown>;
        blocked_by?: string;
      }>("/internal/prompt/process", {
        messages,
        template_id: context.prompt?.template_id,
        rag_config: context.rag,
        indirect_injection: context.guardrails?.input?.indirect_injection,
        deployment_id: context.deployment.id,
        org_id: context.orgId,
        policies_resolved: true,
      });
      return {
        messages: processed.messages,
        retrieval: processed.retrieval,
        ...(processed.blocked_by ? { blockedBy: processed.blocked_by } : {}),
      };
    },
    async writeLogs(entries) {
      if (entries.length === 0) return;
      await postBatch("/internal/logs/create", { entries });
    },
  };
}
