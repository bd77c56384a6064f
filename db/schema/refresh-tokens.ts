import { index, pgTable, uuid } from "drizzle-orm/pg-core";
import { at, createdAt } from "./_columns.ts";
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
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    expiresAt: at("expires_at").notNull(),
    usedAt: at("used_at"),
    revokedAt: at("revoked_at"),
    createdAt: createdAt(),
  },
  (t) => [index("refresh_tokens_family_idx").on(t.familyId)],
);
export type RefreshTokenRow = typeof refreshTokens.$inferSelect;
