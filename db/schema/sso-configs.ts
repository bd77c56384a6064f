import { boolean, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { belongsTo, createdAt, id, updatedAt } from "./_columns.ts";
import { organizations } from "./organizations.ts";

/** One identity provider group and the organization's role its members get. */
export interface GroupRole {
  group: string;
  role: string;
}

/**
 * An organization's OpenID Connect identity provider: what the dashboard's "Sign in with <name>"
 * uses, what maps the provider's groups to roles, and whether passwords still sign in.
 */
export const ssoConfigs = pgTable(
  "sso_configs",
  {
    id: id(),
    orgId: belongsTo("org_id", () => organizations.id),
    /** Shown on the sign-in page: "Sign in with <display_name>". */
    displayName: text("display_name").notNull(),
    issuerUrl: text("issuer_url").notNull(),
    clientId: text("client_id").notNull(),
    /** Sealed with services/crypto/secret-box.ts. */
    clientSecretSealed: text("client_secret_sealed").notNull(),
    /** The ID-token claim holding the user's groups. */
    groupsClaim: text("groups_claim").notNull().default("groups"),
    groupRoles: jsonb("group_roles").$type<GroupRole[]>().notNull().default([]),
    /** The role name of a user none of whose groups is mapped. */
    defaultRole: text("default_role").notNull().default("viewer"),
    /** The `aud` a service account's client-credentials token must carry. */
    serviceAudience: text("service_audience"),
    passwordLoginDisabled: boolean("password_login_disabled").notNull().default(false),
    /** Members who may still sign in with a password while it is off (the break-glass administrators). */
    breakGlassEmails: text("break_glass_emails").array().notNull().default([]),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("sso_configs_org_key").on(t.orgId)],
);
export type SsoConfigRow = typeof ssoConfigs.$inferSelect;
