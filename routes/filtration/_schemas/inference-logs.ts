import { t } from "elysia";
import { logPageSize } from "../../../services/inference-logs/logs.ts";

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
  latency_ms: t.Number(),
  stream: t.Boolean(),
  guardrails: t.Record(t.String(), t.Unknown(), {
    description: "Guardrail decisions: actions and offsets, no text",
  }),
});

export const InferenceLogPage = t.Object({
  items: t.Array(InferenceLog),
  next_cursor: t.Nullable(t.String()),
});
