import { bigint, index, integer, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { at, belongsTo, createdAt } from "./_columns.ts";
import { organizations } from "./organizations.ts";

/**
 * The response cache's answers where no REDIS_URL is set (services/inference/response-cache/): one row
 * per answer, keyed by the SHA-256 of the organization, the deployment and the canonical upstream body.
 * Bounded per organization and deployment by the cache policy's max_entries (oldest go first) and by
 * its TTL (expired rows are never served and are deleted when their scope is next written).
 */
export const responseCacheEntries = pgTable(
  "response_cache_entries",
  {
    key: text("key").primaryKey(),
    orgId: belongsTo("org_id", () => organizations.id),
    /** No foreign key: an answer of a deleted deployment simply expires. */
    deploymentId: uuid("deployment_id").notNull(),
    /** The answer in the chat-completions shape, as JSON text (its byte length is bounded). */
    answer: text("answer").notNull(),
    sizeBytes: integer("size_bytes").notNull(),
    /** Milliseconds since the epoch, from the gateway's clock (tests move it). */
    storedAtMs: bigint("stored_at_ms", { mode: "number" }).notNull(),
    expiresAt: at("expires_at").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("response_cache_entries_scope_idx").on(t.orgId, t.deploymentId, t.storedAtMs)],
);
export type ResponseCacheEntryRow = typeof responseCacheEntries.$inferSelect;
