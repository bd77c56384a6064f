import { index, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { at, belongsTo, createdAt, id } from "./_columns.ts";
import { organizations } from "./organizations.ts";

/**
 * Keys of the inference API. The key itself is shown once at creation and never stored: only its
 * SHA-256, which is what a presented key is looked up by, and a short prefix people recognise it by.
 * Revoked keys keep their row, so logs and audit records still name them.
 */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: id(),
    orgId: belongsTo("org_id", () => organizations.id),
    name: text("name").notNull(),
    /** SHA-256 of the whole key, hex. */
    keyHash: text("key_hash").notNull(),
    /** `sk-` and the first 8 characters: enough to tell keys apart, far too little to guess one. */
    prefix: text("prefix").notNull(),
    /** The deployments the key may call; empty: every deployment of the organization. */
    deploymentIds: uuid("deployment_ids").array().notNull().default([]),
    /** Who created it; no foreign key, the key outlives a removed user. */
    createdBy: uuid("created_by"),
    createdAt: createdAt(),
    /** Written in batches, a few seconds late (see services/api-keys/last-used.ts). */
    lastUsedAt: at("last_used_at"),
    expiresAt: at("expires_at"),
    revokedAt: at("revoked_at"),
  },
  (t) => [
    uniqueIndex("api_keys_key_hash_key").on(t.keyHash),
    index("api_keys_org_created_idx").on(t.orgId, t.createdAt),
  ],
);
export type ApiKeyRow = typeof apiKeys.$inferSelect;
