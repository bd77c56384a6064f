import { index, pgTable, uuid } from "drizzle-orm/pg-core";
import { at, belongsTo, createdAt } from "./_columns.ts";
import { organizations } from "./organizations.ts";
import { users } from "./users.ts";

/**
 * One row per refresh token issued (its `jti`). Rotation marks a token used; a token used twice
 * revokes its whole family (every token descended from one login).
 */
export const refreshTokens = pgTable(
  "refresh_tokens",
  {
    id: uuid("id").primaryKey(),
    familyId: uuid("family_id").notNull(),
    userId: belongsTo("user_id", () => users.id),
    orgId: belongsTo("org_id", () => organizations.id),
    expiresAt: at("expires_at").notNull(),
    usedAt: at("used_at"),
    revokedAt: at("revoked_at"),
    createdAt: createdAt(),
  },
  (t) => [index("refresh_tokens_family_idx").on(t.familyId)],
);
export type RefreshTokenRow = typeof refreshTokens.$inferSelect;
