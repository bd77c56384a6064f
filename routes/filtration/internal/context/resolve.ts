import { t } from "elysia";
import { wireIds } from "#adapters/upstream/wire/index.ts";
import { BudgetConfig, CacheConfig, QuotaConfig, RateLimitConfig } from "#core/policies.ts";
import { route } from "#server/http/route.ts";
import type { HostedUpstream } from "#services/inference/port.ts";
import { resolveInferenceContext } from "#services/inference-context/resolve.ts";

const Reason = t.Union([
  t.Literal("invalid_api_key"),
  t.Literal("model_not_found"),
  t.Literal("model_not_allowed"),
  t.Literal("deployment_unavailable"),
]);

const Upstream = t.Object(
  {
    wire: t.Union(wireIds.map((w) => t.Literal(w))),
    model: t.String({ description: "The model name sent upstream (the deployment's inference_model)" }),
    api_key: t.Optional(t.String({ description: "The secret of the credential the deployment names" })),
    options: t.Optional(t.Record(t.String(), t.String())),
  },
  {
    description:
      "A hosted deployment's upstream: only this internal endpoint carries the credential, to an inference gateway apart",
  },
);

/** The upstream in the endpoint's snake_case. */
const upstreamWire = (u: HostedUpstream | undefined) =>
  u && {
    wire: u.wire,
    model: u.model,
    ...(u.apiKey ? { api_key: u.apiKey } : {}),
    ...(u.options ? { options: { ...u.options } } : {}),
  };

const Price = t.Object(
  {
    input_price_per_million: t.Nullable(t.Number()),
    output_price_per_million: t.Nullable(t.Number()),
    cached_input_price_per_million: t.Optional(t.Nullable(t.Number())),
    estimated_cost_per_hour: t.Nullable(t.Number()),
  },
  {
    description:
      "The deployment's prices (its own, else a hosted model's from the price table), each request's cost; absent when it is unpriced",
  },
);

const Resolved = t.Object({
  valid: t.Literal(true),
  deployment: t.Object({
    id: t.String(),
    name: t.String(),
    endpoint: t.Nullable(
      t.String({ description: "The first ready replica's base URL; null while none is ready" }),
    ),
    status: t.String(),
  }),
  endpoints: t.Array(t.String(), { description: "Base URLs of every ready replica" }),
  upstream: t.Optional(Upstream),
  guardrail_config: t.Record(t.String(), t.Unknown(), {
    description: "{} when no guardrails policy applies",
  }),
  rag_config: t.Record(t.String(), t.Unknown(), { description: "{} when no rag policy applies" }),
  rate_limit: t.Nullable(RateLimitConfig),
  quota: t.Nullable(QuotaConfig),
  prompt: t.Nullable(t.Object({ template_id: t.String() })),
  org_id: t.String(),
  api_key_id: t.String(),
  key_prefix: t.String(),
  classifier_endpoints: t.Optional(
    t.Array(t.String(), { description: "Ready replicas of the guardrails policy's classifier deployment" }),
  ),
  fallbacks: t.Optional(
    t.Array(
      t.Object({
        deployment: t.Object({ id: t.String(), name: t.String() }),
        endpoints: t.Array(t.String()),
        upstream: t.Optional(Upstream),
        price: t.Optional(Price),
      }),
      {
        description:
          "The routing policy's fallbacks that may serve this key now, in order (running, with a ready replica, allowed to the key)",
      },
    ),
  ),
  prefix_affinity: t.Optional(
    t.Boolean({ description: "false when the routing policy turned prefix affinity off; absent: on" }),
  ),
  price: t.Optional(Price),
  budgets: t.Optional(
    t.Object(
      { organization: t.Optional(BudgetConfig), api_key: t.Optional(BudgetConfig) },
      { description: "The budgets of the organization and the key; absent when none sets a limit" },
    ),
  ),
  context_tokens: t.Optional(
    t.Integer({
      minimum: 1,
      description:
        "Tokens one sequence of the deployment holds (context_size or max_model_len); absent when not known",
    }),
  ),
  cold_start: t.Optional(
    t.Object(
      { cold_start_timeout_s: t.Number(), max_queued: t.Integer() },
      { description: "Set when the deployment autoscales: how a request waits for a replica from zero" },
    ),
  ),
  cache: t.Optional(CacheConfig),
  cache_embedding_endpoints: t.Optional(
    t.Array(t.String(), { description: "Ready replicas of the semantic cache's embedding deployment" }),
  ),
});

export const POST = route({
  access: "internal",
  summary: "Resolve an API key and a model (deployment name) into an inference context",
  description:
    "`{valid: false, reason}` when it does not resolve: `invalid_api_key` (unknown, revoked or expired key), " +
    "`model_not_found`, `model_not_allowed` (the key may not call it) or `deployment_unavailable` (stopped, " +
    "and no fallback can answer for it). Only " +
    "holders of the internal key may ask, and the inference gateway needs the reason for its error codes.",
  body: t.Object({
    api_key: t.String({ maxLength: 256 }),
    model: t.String({ maxLength: 256 }),
  }),
  response: t.Union([
    t.Object({
      valid: t.Literal(false),
      reason: Reason,
      caller: t.Optional(
        t.Object(
          { org_id: t.String(), api_key_id: t.String(), key_prefix: t.String() },
          { description: "Whose key made the refused call, when known: its log goes to that organization" },
        ),
      ),
    }),
    Resolved,
  ]),
  async handler({ ctx, body }) {
    const resolution = await resolveInferenceContext(ctx, body.api_key, body.model);
    if (!resolution.ok) {
      const who = resolution.caller;
      return {
        valid: false as const,
        reason: resolution.reason,
        ...(who
          ? { caller: { org_id: who.orgId, api_key_id: who.apiKeyId, key_prefix: who.keyPrefix } }
          : {}),
      };
    }
    const c = resolution.context;
    return {
      valid: true as const,
      deployment: {
        id: c.deployment.id,
        name: c.deployment.name,
        endpoint: c.endpoints[0] ?? null,
        status: c.deployment.status,
      },
      endpoints: c.endpoints,
      ...(c.upstream ? { upstream: upstreamWire(c.upstream) } : {}),
      guardrail_config: c.guardrails ?? {},
      rag_config: c.rag ?? {},
      rate_limit: c.rateLimit ?? null,
      quota: c.quota ?? null,
      prompt: c.prompt ?? null,
      org_id: c.orgId,
      api_key_id: c.apiKeyId,
      key_prefix: c.keyPrefix,
      ...(c.classifierEndpoints ? { classifier_endpoints: c.classifierEndpoints } : {}),
      ...(c.fallbacks
        ? {
            fallbacks: c.fallbacks.map((f) => ({
              deployment: f.deployment,
              endpoints: f.endpoints,
              ...(f.upstream ? { upstream: upstreamWire(f.upstream) } : {}),
              ...(f.price ? { price: f.price } : {}),
            })),
          }
        : {}),
      ...(c.prefixAffinity === false ? { prefix_affinity: false } : {}),
      ...(c.price ? { price: c.price } : {}),
      ...(c.budgets ? { budgets: c.budgets } : {}),
      ...(c.coldStart ? { cold_start: c.coldStart } : {}),
      ...(c.cache ? { cache: c.cache } : {}),
      ...(c.cacheEmbeddingEndpoints ? { cache_embedding_endpoints: c.cacheEmbeddingEndpoints } : {}),
      ...(c.contextTokens ? { context_tokens: c.contextTokens } : {}),
    };
  },
});
