import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { writeInferenceLogs } from "#services/inference-logs/logs.ts";
import { Uuid } from "../../_schemas/internal.ts";

const count = t.Integer({ minimum: 0 });
const Entry = t.Object({
  id: t.Optional(Uuid),
  request_id: t.String({ minLength: 1, maxLength: 128 }),
  org_id: t.Optional(t.Nullable(Uuid)),
  deployment_id: t.Optional(t.Nullable(Uuid)),
  api_key_id: t.Optional(t.Nullable(Uuid)),
  key_prefix: t.Optional(t.Nullable(t.String({ maxLength: 32 }))),
  model: t.String({ maxLength: 256 }),
  status: t.Integer({ minimum: 100, maximum: 599 }),
  error_code: t.Optional(t.Nullable(t.String({ maxLength: 64 }))),
  prompt_tokens: t.Optional(count),
  completion_tokens: t.Optional(count),
  total_tokens: t.Optional(count),
  cached_tokens: t.Optional(count),
  latency_ms: t.Optional(t.Number({ minimum: 0 })),
  cost: t.Optional(t.Number({ minimum: 0 })),
  ttft_ms: t.Optional(t.Nullable(t.Number({ minimum: 0 }))),
  /** When the request was made; absent: when the entry is written. */
  created_at: t.Optional(t.String({ format: "date-time" })),
  stream: t.Optional(t.Boolean()),
  guardrails: t.Optional(t.Record(t.String(), t.Unknown())),
  retrieval: t.Optional(t.Nullable(t.Record(t.String(), t.Unknown()))),
  served_by_deployment_id: t.Optional(t.Nullable(Uuid)),
  served_by: t.Optional(t.Nullable(t.String({ maxLength: 256 }))),
  cache: t.Optional(t.Nullable(t.Union([t.Literal("hit"), t.Literal("miss")]))),
  cache_saved_tokens: t.Optional(count),
  served_by_endpoint: t.Optional(t.Nullable(t.String({ maxLength: 2048 }))),
});

export const POST = route({
  access: "internal",
  // Prompts, documents and model output: any character but NUL.
  freeText: true,
  summary: "Record inference log entries: one entry, or a batch as `{entries: [...]}`",
  bodyLimit: 16 * 1024 * 1024,
  body: t.Union([t.Object({ entries: t.Array(Entry, { minItems: 1, maxItems: 10_000 }) }), Entry]),
  status: 201,
  response: t.Object({ written: t.Integer() }),
  handler: ({ ctx, body }) => writeInferenceLogs(ctx, "entries" in body ? body.entries : [body]),
});
