import { index, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { belongsTo, createdAt } from "./_columns.ts";
import { organizations } from "./organizations.ts";

/**
 * Responses of POST /v1/responses kept for `GET /v1/responses/{id}` and `previous_response_id`
 * (`store`, true unless the caller says false). Kept until deleted (DELETE /v1/responses/{id}) or until
 * their organization is. The id is the public `resp_…` id; lookups always name the organization too,
 * so another organization's id is simply not found.
 */
export const storedResponses = pgTable(
  "stored_responses",
  {
    id: text("id").primaryKey(),
    orgId: belongsTo("org_id", () => organizations.id),
    /** No foreign keys: a stored response outlives its key and its deployment, as logs do. */
    apiKeyId: uuid("api_key_id"),
    deploymentId: uuid("deployment_id"),
    /**
     * The input items the model answered, earlier turns included (a previous response's conversation
     * and output, then this request's input), so a follow-up reads one row, not a chain.
     */
    conversation: jsonb("conversation").$type<unknown[]>().notNull(),
    /** The response object as POST /v1/responses answered it. */
    body: jsonb("body").$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("stored_responses_org_created_idx").on(t.orgId, t.createdAt)],
);
export type StoredResponseRow = typeof storedResponses.$inferSelect;
