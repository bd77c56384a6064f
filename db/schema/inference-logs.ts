import {
  bigint,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  uuid,
} from "drizzle-orm/pg-core";
import { createdAt, id } from "./_columns.ts";

/**
 * One row per inference request, written in batches by the inference gateway. No foreign keys: a log
 * outlives its deployment and key, and a request with a bad key has neither (org_id null).
 */
export const inferenceLogs = pgTable(
  "inference_logs",
  {
    id: id(),
    /** Insertion order, for stable pages (newest first) without timestamp ties. */
    seq: bigint("seq", { mode: "number" }).generatedAlwaysAsIdentity(),
    requestId: text("request_id").notNull(),
    orgId: uuid("org_id"),
    deploymentId: uuid("deployment_id"),
    apiKeyId: uuid("api_key_id"),
    keyPrefix: text("key_prefix"),
    model: text("model").notNull(),
    status: integer("status").notNull(),
    errorCode: text("error_code"),
    promptTokens: integer("prompt_tokens").notNull().default(0),
    completionTokens: integer("completion_tokens").notNull().default(0),
    totalTokens: integer("total_tokens").notNull().default(0),
    /**
     * Prompt tokens the engine reused from its prefix cache instead of evaluating, as its usage said
     * (`prompt_tokens_details.cached_tokens`); 0 when it reused none or does not say.
     */
    cachedTokens: integer("cached_tokens").notNull().default(0),
    latencyMs: doublePrecision("latency_ms").notNull().default(0),
    /** What the request cost at its deployment's prices (services/spend/prices.ts); 0 when unpriced. */
    cost: doublePrecision("cost").notNull().default(0),
    /**
     * Until the first token was ready to go out: the first content chunk of a stream, the whole answer
     * of a non-streamed call (so it equals the latency but for the output guardrails). Null when no
     * token was produced: refused or failed requests, embeddings.
     */
    ttftMs: doublePrecision("ttft_ms"),
    stream: boolean("stream").notNull().default(false),
    /** Guardrail decisions: actions and finding offsets, never the matched text. */
    guardrails: jsonb("guardrails").$type<Record<string, unknown>>().notNull().default({}),
    /** What retrieval did: how it searched, which documents it used, and why it fell back, if it did. */
    retrieval: jsonb("retrieval").$type<Record<string, unknown>>(),
    /**
     * The deployment that answered: deployment_id itself, or a fallback of its routing policy. Null
     * when no deployment answered (a refusal, a failure).
     */
    servedByDeploymentId: uuid("served_by_deployment_id"),
    /** That deployment's name when it answered, as the `x-served-by` header said. */
    servedBy: text("served_by"),
    /**
     * The response cache's part (services/inference/response-cache/): `hit` (answered from the cache: no
     * model ran, cost 0, tokens 0), `miss` (computed and stored); null when no cache policy applied.
     */
    cache: text("cache", { enum: ["hit", "miss"] }),
    /** A hit's answer's tokens (prompt and completion) that no model had to compute again. */
    cacheSavedTokens: integer("cache_saved_tokens").notNull().default(0),
    /**
     * The replica of that deployment that answered: its base URL as the deployment's page lists it
     * (scheme, host, port and path; never user info or a query, which could carry a credential). Null
     * when no replica answered.
     */
    servedByEndpoint: text("served_by_endpoint"),
    createdAt: createdAt(),
  },
  (t) => [
    index("inference_logs_org_seq_idx").on(t.orgId, t.seq),
    index("inference_logs_deployment_seq_idx").on(t.deploymentId, t.seq),
  ],
);
export type InferenceLogRow = typeof inferenceLogs.$inferSelect;
