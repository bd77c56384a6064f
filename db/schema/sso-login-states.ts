import { pgTable, text } from "drizzle-orm/pg-core";
import { at, belongsTo, createdAt } from "./_columns.ts";
import { organizations } from "./organizations.ts";

/**
 * A sign-in sent to the identity provider and not yet back: its `state` (the key), the PKCE verifier
 * and the `nonce` the ID token must carry. The callback deletes the row as it reads it, so a `state`
 * is accepted once.
 */
export const ssoLoginStates = pgTable("sso_login_states", {
  state: text("state").primaryKey(),
  orgId: belongsTo("org_id", () => organizations.id),
  codeVerifier: text("code_verifier").notNull(),
  nonce: text("nonce").notNull(),
  /** Where the dashboard goes once signed in (a same-site path). */
  next: text("next").notNull().default("/"),
  expiresAt: at("expires_at").notNull(),
  createdAt: createdAt(),
});
export type SsoLoginStateRow = typeof ssoLoginStates.$inferSelect;
