// A resolution (services/inference-context/resolve.ts) as POST /internal/context/resolve writes it, in the
// contract's snake_case (contracts/internal/resolve.ts), and back: both directions side by side, so a
// field added to the context is added to the answer and read back in one place.
import type {
  ResolveAnswer,
  Resolved,
  ResolvedFallback,
  ResolvedUpstream,
} from "#contracts/internal/resolve.ts";
import type { HostedUpstream, Resolution, RouteTarget } from "../inference/port.ts";
import type { ContextResolution, ResolvedContext } from "./resolve.ts";

const upstreamToWire = (u: HostedUpstream): ResolvedUpstream => ({
  wire: u.wire,
  model: u.model,
  ...(u.apiKey ? { api_key: u.apiKey } : {}),
  ...(u.options ? { options: { ...u.options } } : {}),
});

const upstreamFromWire = (u: ResolvedUpstream): HostedUpstream => ({
  wire: u.wire,
  model: u.model,
  ...(u.api_key ? { apiKey: u.api_key } : {}),
  ...(u.options ? { options: u.options } : {}),
});

const fallbackToWire = (f: RouteTarget): ResolvedFallback => ({
  deployment: f.deployment,
  endpoints: f.endpoints,
  ...(f.upstream ? { upstream: upstreamToWire(f.upstream) } : {}),
  ...(f.price ? { price: f.price } : {}),
});

const fallbackFromWire = (f: ResolvedFallback): RouteTarget => ({
  deployment: f.deployment,
  endpoints: f.endpoints,
  ...(f.upstream ? { upstream: upstreamFromWire(f.upstream) } : {}),
  ...(f.price ? { price: f.price } : {}),
});

function contextToWire(c: ResolvedContext): Resolved {
  return {
    valid: true,
    deployment: {
      id: c.deployment.id,
      name: c.deployment.name,
      endpoint: c.endpoints[0] ?? null,
      status: c.deployment.status,
    },
    endpoints: c.endpoints,
    ...(c.upstream ? { upstream: upstreamToWire(c.upstream) } : {}),
    guardrail_config: c.guardrails ?? {},
    rag_config: c.rag ?? {},
    rate_limit: c.rateLimit ?? null,
    quota: c.quota ?? null,
    prompt: c.prompt ?? null,
    org_id: c.orgId,
    api_key_id: c.apiKeyId,
    key_prefix: c.keyPrefix,
    ...(c.classifierEndpoints ? { classifier_endpoints: c.classifierEndpoints } : {}),
    ...(c.fallbacks ? { fallbacks: c.fallbacks.map(fallbackToWire) } : {}),
    ...(c.prefixAffinity === false ? { prefix_affinity: false } : {}),
    ...(c.price ? { price: c.price } : {}),
    ...(c.budgets ? { budgets: c.budgets } : {}),
    ...(c.coldStart ? { cold_start: c.coldStart } : {}),
    ...(c.cache ? { cache: c.cache } : {}),
    ...(c.cacheEmbeddingEndpoints ? { cache_embedding_endpoints: c.cacheEmbeddingEndpoints } : {}),
    ...(c.contextTokens ? { context_tokens: c.contextTokens } : {}),
  };
}

/** The endpoint's answer for a resolution. */
export function resolutionToWire(resolution: ContextResolution): ResolveAnswer {
  if (resolution.ok) return contextToWire(resolution.context);
  const who = resolution.caller;
  return {
    valid: false,
    reason: resolution.reason,
    ...(who ? { caller: { org_id: who.orgId, api_key_id: who.apiKeyId, key_prefix: who.keyPrefix } } : {}),
  };
}

/** A guardrails config with no field set is no policy: the lifecycle skips the guardrails then. */
const nonEmpty = <T extends object>(o: T): T | undefined => (Object.keys(o).length > 0 ? o : undefined);

/** The resolution an answer of the endpoint stands for (the inference gateway's side). */
export function resolutionFromWire(body: ResolveAnswer): Resolution {
  if (!body.valid) {
    const who = body.caller;
    return {
      ok: false,
      reason: body.reason,
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
      ...(body.upstream ? { upstream: upstreamFromWire(body.upstream) } : {}),
      rateLimit: body.rate_limit ?? undefined,
      quota: body.quota ?? undefined,
      guardrails: nonEmpty(body.guardrail_config),
      rag: "collection_ids" in body.rag_config ? body.rag_config : undefined,
      prompt: body.prompt ?? undefined,
      classifierEndpoints: body.classifier_endpoints,
      ...(body.fallbacks?.length ? { fallbacks: body.fallbacks.map(fallbackFromWire) } : {}),
      ...(body.prefix_affinity === false ? { prefixAffinity: false } : {}),
      ...(body.price ? { price: body.price } : {}),
      ...(body.budgets ? { budgets: body.budgets } : {}),
      coldStart: body.cold_start,
      ...(body.cache ? { cache: body.cache } : {}),
      ...(body.cache_embedding_endpoints ? { cacheEmbeddingEndpoints: body.cache_embedding_endpoints } : {}),
      ...(body.context_tokens ? { contextTokens: body.context_tokens } : {}),
    },
  };
}
