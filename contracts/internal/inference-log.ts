// The inference log on the wire: what an inference gateway sends to POST /internal/logs/create (one entry
// or a batch) and what retrieval notes in it. Written once here: the route
// (routes/filtration/internal/logs/create.ts) validates and documents with these schemas, and
// services/inference-logs/logs.ts writes the entries it derives from them. The inference gateway builds
// its entries as services/inference/port.ts InferenceLogEntry, which must stay assignable to this one
// (the in-process port hands them to writeInferenceLogs unchanged, so tsc checks it).
import { type Static, Type as T, type TSchema } from "@sinclair/typebox";
import { Uuid } from "./common.ts";

/** What retrieval did for a request, as the log keeps it: documents and scores, never the passages' text. */
export const RetrievalNote = T.Object(
  {
    mode: T.Union([T.Literal("full_text"), T.Literal("hybrid")], {
      description:
        "hybrid: full text and the embedding deployment's vector ranking, fused by reciprocal rank",
    }),
    passages: T.Array(T.Object({ document: T.String(), score: T.Number() }), {
      description: "The passages added to the prompt: their documents and scores, never their text",
    }),
    embedding_deployment: T.Optional(T.String()),
    fallback: T.Optional(
      T.String({ description: "Why the vector ranking took no part, when one was asked for" }),
    ),
  },
  { description: "What retrieval did for the request" },
);
export type RetrievalNote = Static<typeof RetrievalNote>;

const count = T.Integer({ minimum: 0 });
const nullable = <S extends TSchema>(schema: S) => T.Union([schema, T.Null()]);

/** One entry as the route takes it: ids the gateway does not know are left out or null. */
export const InferenceLogEntryInput = T.Object({
  id: T.Optional(Uuid),
  request_id: T.String({ minLength: 1, maxLength: 128 }),
  org_id: T.Optional(nullable(Uuid)),
  deployment_id: T.Optional(nullable(Uuid)),
  api_key_id: T.Optional(nullable(Uuid)),
  key_prefix: T.Optional(nullable(T.String({ maxLength: 32 }))),
  model: T.String({ maxLength: 256 }),
  status: T.Integer({ minimum: 100, maximum: 599 }),
  error_code: T.Optional(nullable(T.String({ maxLength: 64 }))),
  prompt_tokens: T.Optional(count),
  completion_tokens: T.Optional(count),
  total_tokens: T.Optional(count),
  cached_tokens: T.Optional(count),
  latency_ms: T.Optional(T.Number({ minimum: 0 })),
  cost: T.Optional(T.Number({ minimum: 0 })),
  ttft_ms: T.Optional(nullable(T.Number({ minimum: 0 }))),
  /** When the request was made; absent: when the entry is written. */
  created_at: T.Optional(T.String({ format: "date-time" })),
  stream: T.Optional(T.Boolean()),
  guardrails: T.Optional(T.Record(T.String(), T.Unknown())),
  retrieval: T.Optional(nullable(T.Record(T.String(), T.Unknown()))),
  served_by_deployment_id: T.Optional(nullable(Uuid)),
  served_by: T.Optional(nullable(T.String({ maxLength: 256 }))),
  cache: T.Optional(nullable(T.Union([T.Literal("hit"), T.Literal("miss")]))),
  cache_saved_tokens: T.Optional(count),
  served_by_endpoint: T.Optional(nullable(T.String({ maxLength: 2048 }))),
});
export type InferenceLogEntryInput = Static<typeof InferenceLogEntryInput>;

/** POST /internal/logs/create's body: one entry, or a batch. */
export const InferenceLogBatch = T.Union([
  T.Object({ entries: T.Array(InferenceLogEntryInput, { minItems: 1, maxItems: 10_000 }) }),
  InferenceLogEntryInput,
]);
