import { t } from "elysia";
import { RetrievalNote } from "#contracts/internal/inference-log.ts";
import { logPageSize } from "#services/inference-logs/logs.ts";

export const LogPageQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: logPageSize.max, default: logPageSize.default })),
  cursor: t.Optional(t.String({ maxLength: 32 })),
});

const InferenceLog = t.Object({
  id: t.String(),
  request_id: t.String(),
  created_at: t.String({ format: "date-time" }),
  deployment_id: t.Nullable(t.String()),
  api_key_id: t.Nullable(t.String()),
  key_prefix: t.Nullable(t.String()),
  model: t.String(),
  status: t.Integer(),
  error_code: t.Nullable(t.String()),
  prompt_tokens: t.Integer(),
  completion_tokens: t.Integer(),
  total_tokens: t.Integer(),
  cached_tokens: t.Integer({ description: "Prompt tokens the engine reused from its prefix cache" }),
  latency_ms: t.Number(),
  cost: t.Number({
    description: "What the request cost at its deployment's prices, in their currency; 0: unpriced",
  }),
  ttft_ms: t.Nullable(t.Number({ description: "Until the first token was ready; null when none was" })),
  stream: t.Boolean(),
  guardrails: t.Record(t.String(), t.Unknown(), {
    description: "Guardrail decisions: actions and offsets, no text",
  }),
  retrieval: t.Nullable(RetrievalNote),
  served_by_deployment_id: t.Nullable(
    t.String({
      description:
        "The deployment that answered: deployment_id, or a fallback of its routing policy; null when none did",
    }),
  ),
  served_by: t.Nullable(t.String({ description: "That deployment's name (the x-served-by header)" })),
  cache: t.Optional(
    t.Nullable(
      t.Union([t.Literal("hit"), t.Literal("miss")], {
        description:
          "The response cache's part: hit (answered from the cache: cost 0, tokens 0), miss; null: no cache policy",
      }),
    ),
  ),
  cache_saved_tokens: t.Optional(t.Integer({ description: "A hit's tokens that no model computed again" })),
  served_by_endpoint: t.Nullable(
    t.String({
      description:
        "The base URL of the replica that answered, as the deployment's replicas list it (no credentials); null when none did",
    }),
  ),
});

export const InferenceLogPage = t.Object({
  items: t.Array(InferenceLog),
  next_cursor: t.Nullable(t.String()),
});
