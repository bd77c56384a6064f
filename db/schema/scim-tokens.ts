import { pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { at, belongsTo, createdAt, id } from "./_columns.ts";
import { organizations } from "./organizations.ts";

/** The bearer tokens an identity provider provisions users with (SCIM 2.0). Only the SHA-256 is kept. */
export const scimTokens = pgTable(
  "scim_tokens",
  {
    id: id(),
    orgId: belongsTo("org_id", () => organizations.id),
    /** SHA-256 of the whole token, hex. */
    tokenHash: text("token_hash").notNull(),
    /** `scim-` and the first 8 characters, to tell tokens apart. */
    prefix: text("prefix").notNull(),
    createdAt: createdAt(),
    revokedAt: at("revoked_at"),
  },
  (t) => [uniqueIndex("scim_tokens_token_hash_key").on(t.tokenHash)],
);
export type ScimTokenRow = typeof scimTokens.$inferSelect;
