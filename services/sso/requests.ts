// The SSO configuration as the admin API and the dashboard's form take it and answer it: written once,
// both sides use these schemas.
import { type Static, Type as T } from "@sinclair/typebox";

export const GroupRoleSchema = T.Object({
  group: T.String({ minLength: 1, maxLength: 256, description: "A value of the groups claim" }),
  role: T.String({ minLength: 1, maxLength: 64, description: "A role of the organization" }),
});

export const ServiceAccountSchema = T.Object({
  client_id: T.String({ minLength: 1, maxLength: 256, description: "The identity provider's client id" }),
  role: T.String({ minLength: 1, maxLength: 64, description: "The role its tokens act with" }),
});

export const PutSsoBody = T.Object({
  display_name: T.String({ minLength: 1, maxLength: 80, description: 'Shown as "Sign in with <name>"' }),
  issuer_url: T.String({
    minLength: 8,
    maxLength: 2048,
    description: "The provider's issuer (discovery base)",
  }),
  client_id: T.String({ minLength: 1, maxLength: 256 }),
  client_secret: T.Optional(
    T.String({ minLength: 1, maxLength: 1024, description: "Required the first time; omitted: kept" }),
  ),
  groups_claim: T.Optional(T.String({ minLength: 1, maxLength: 128, description: "Default `groups`" })),
  group_roles: T.Optional(T.Array(GroupRoleSchema, { maxItems: 200 })),
  default_role: T.Optional(T.String({ minLength: 1, maxLength: 64, description: "Default `viewer`" })),
  service_audience: T.Optional(
    T.Union([T.String({ minLength: 1, maxLength: 512 }), T.Null()], {
      description: "The `aud` client-credentials tokens must carry",
    }),
  ),
  service_accounts: T.Optional(T.Array(ServiceAccountSchema, { maxItems: 200 })),
  password_login_disabled: T.Optional(T.Boolean()),
  break_glass_emails: T.Optional(T.Array(T.String({ minLength: 3, maxLength: 254 }), { maxItems: 20 })),
});
export type PutSsoInput = Static<typeof PutSsoBody>;

export const SsoConfigView = T.Object({
  display_name: T.String(),
  issuer_url: T.String(),
  client_id: T.String(),
  client_secret_set: T.Boolean({ description: "The secret itself is never answered" }),
  groups_claim: T.String(),
  group_roles: T.Array(GroupRoleSchema),
  default_role: T.String(),
  service_audience: T.Union([T.String(), T.Null()]),
  service_accounts: T.Array(ServiceAccountSchema),
  password_login_disabled: T.Boolean(),
  break_glass_emails: T.Array(T.String()),
  redirect_path: T.String({ description: "Append to the dashboard's address: the provider's redirect URI" }),
  updated_at: T.String({ format: "date-time" }),
});
export type SsoConfigViewT = Static<typeof SsoConfigView>;

export const ScimTokenView = T.Object({
  id: T.String(),
  prefix: T.String(),
  created_at: T.String({ format: "date-time" }),
  revoked_at: T.Union([T.String({ format: "date-time" }), T.Null()]),
});
export type ScimTokenViewT = Static<typeof ScimTokenView>;

export const NewScimToken = T.Composite([
  ScimTokenView,
  T.Object({ token: T.String({ description: "Shown once; only its hash is kept" }) }),
]);
export type NewScimTokenT = Static<typeof NewScimToken>;
