// POST /internal/context/resolve and /internal/context/models, the filtration gateway's answers to an
// inference gateway apart: an API key and a model (a deployment name) resolved into what one request
// needs, and the models a key may call. Written once here: the routes (routes/filtration/internal/context/)
// answer with these schemas and document them, and the client (server/filtration-http-port.ts) checks
// every answer against them before reading a field.
import { type Static, Type as T } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { wireIds } from "#core/domain.ts";
import {
  BudgetConfig,
  CacheConfig,
  GuardrailsConfig,
  QuotaConfig,
  RagConfig,
  RateLimitConfig,
} from "#core/policies.ts";

export const ResolveRequest = T.Object({
  api_key: T.String({ maxLength: 256 }),
  model: T.String({ maxLength: 256 }),
});
export type ResolveRequest = Static<typeof ResolveRequest>;

export const UnresolvedReason = T.Union([
  T.Literal("invalid_api_key"),
  T.Literal("model_not_found"),
  T.Literal("model_not_allowed"),
  T.Literal("deployment_unavailable"),
]);

/** Whose key made a call: on a refusal, when known, so that its log goes to that organization. */
export const ResolveCaller = T.Object(
  { org_id: T.String(), api_key_id: T.String(), key_prefix: T.String() },
  { description: "Whose key made the refused call, when known: its log goes to that organization" },
);
export type ResolveCaller = Static<typeof ResolveCaller>;

export const ResolveRefusal = T.Object({
  valid: T.Literal(false),
  reason: UnresolvedReason,
  caller: T.Optional(ResolveCaller),
});
export type ResolveRefusal = Static<typeof ResolveRefusal>;

export const ResolvedUpstream = T.Object(
  {
    wire: T.Union(wireIds.map((w) => T.Literal(w))),
    model: T.String({ description: "The model name sent upstream (the deployment's inference_model)" }),
    api_key: T.Optional(T.String({ description: "The secret of the credential the deployment names" })),
    options: T.Optional(T.Record(T.String(), T.String())),
  },
  {
    description:
      "A hosted deployment's upstream: only this internal endpoint carries the credential, to an inference gateway apart",
  },
);
export type ResolvedUpstream = Static<typeof ResolvedUpstream>;

export const ResolvedPrice = T.Object(
  {
    input_price_per_million: T.Union([T.Number(), T.Null()]),
    output_price_per_million: T.Union([T.Number(), T.Null()]),
    cached_input_price_per_million: T.Optional(T.Union([T.Number(), T.Null()])),
    estimated_cost_per_hour: T.Union([T.Number(), T.Null()]),
  },
  {
    description:
      "The deployment's prices (its own, else a hosted model's from the price table), each request's cost; absent when it is unpriced",
  },
);

export const ResolvedFallback = T.Object({
  deployment: T.Object({ id: T.String(), name: T.String() }),
  endpoints: T.Array(T.String()),
  upstream: T.Optional(ResolvedUpstream),
  price: T.Optional(ResolvedPrice),
});
export type ResolvedFallback = Static<typeof ResolvedFallback>;

/** No rag policy applies: `{}`. */
const NoRag = T.Object({}, { additionalProperties: false });

export const Resolved = T.Object({
  valid: T.Literal(true),
  deployment: T.Object({
    id: T.String(),
    name: T.String(),
    endpoint: T.Union([
      T.String({ description: "The first ready replica's base URL; null while none is ready" }),
      T.Null(),
    ]),
    status: T.String(),
  }),
  endpoints: T.Array(T.String(), { description: "Base URLs of every ready replica" }),
  upstream: T.Optional(ResolvedUpstream),
  /** {} when no guardrails policy applies (every field of the config is optional). */
  guardrail_config: GuardrailsConfig,
  rag_config: T.Union([RagConfig, NoRag], { description: "{} when no rag policy applies" }),
  rate_limit: T.Union([RateLimitConfig, T.Null()]),
  quota: T.Union([QuotaConfig, T.Null()]),
  prompt: T.Union([T.Object({ template_id: T.String() }), T.Null()]),
  org_id: T.String(),
  api_key_id: T.String(),
  key_prefix: T.String(),
  classifier_endpoints: T.Optional(
    T.Array(T.String(), { description: "Ready replicas of the guardrails policy's classifier deployment" }),
  ),
  fallbacks: T.Optional(
    T.Array(ResolvedFallback, {
      description:
        "The routing policy's fallbacks that may serve this key now, in order (running, with a ready replica, allowed to the key)",
    }),
  ),
  prefix_affinity: T.Optional(
    T.Boolean({ description: "false when the routing policy turned prefix affinity off; absent: on" }),
  ),
  price: T.Optional(ResolvedPrice),
  budgets: T.Optional(
    T.Object(
      { organization: T.Optional(BudgetConfig), api_key: T.Optional(BudgetConfig) },
      { description: "The budgets of the organization and the key; absent when none sets a limit" },
    ),
  ),
  context_tokens: T.Optional(
    T.Integer({
      minimum: 1,
      description:
        "Tokens one sequence of the deployment holds (context_size or max_model_len); absent when not known",
    }),
  ),
  cold_start: T.Optional(
    T.Object(
      { cold_start_timeout_s: T.Number(), max_queued: T.Integer() },
      { description: "Set when the deployment autoscales: how a request waits for a replica from zero" },
    ),
  ),
  cache: T.Optional(CacheConfig),
  cache_embedding_endpoints: T.Optional(
    T.Array(T.String(), { description: "Ready replicas of the semantic cache's embedding deployment" }),
  ),
});
export type Resolved = Static<typeof Resolved>;

export const ResolveAnswer = T.Union([ResolveRefusal, Resolved]);
export type ResolveAnswer = Static<typeof ResolveAnswer>;

/** The client's check of an answer (the server's is the route's response schema). */
export const checkResolveAnswer = TypeCompiler.Compile(ResolveAnswer);

export const ModelsRequest = T.Object({ api_key: T.String({ maxLength: 256 }) });

export const ModelsAnswer = T.Union([
  T.Object({ valid: T.Literal(false) }),
  T.Object({
    valid: T.Literal(true),
    data: T.Array(T.Object({ id: T.String(), created: T.Integer() })),
  }),
]);
export type ModelsAnswer = Static<typeof ModelsAnswer>;

export const checkModelsAnswer = TypeCompiler.Compile(ModelsAnswer);
