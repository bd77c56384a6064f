import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { deleteSso, getSso, putSso } from "#services/sso/config.ts";
import { PutSsoBody, SsoConfigView } from "#services/sso/requests.ts";

export const GET = route({
  access: "sso:read",
  summary: "Your organization's single sign-on (OpenID Connect) configuration",
  response: SsoConfigView,
  errors: [404],
  handler: ({ ctx }) => getSso(ctx),
});

export const PUT = route({
  access: "sso:write",
  summary: "Configure single sign-on: the identity provider, groups to roles, service accounts, passwords",
  description:
    "`client_secret` is required the first time and kept (sealed) when omitted later. Roles must exist in " +
    "the organization. `password_login_disabled: true` needs `break_glass_emails`: administrators who keep " +
    "password sign-in. `service_accounts`, when given, replaces the list.",
  body: PutSsoBody,
  response: SsoConfigView,
  handler: ({ ctx, body }) => putSso(ctx, body),
});

export const DELETE = route({
  access: "sso:write",
  summary: "Remove single sign-on (passwords sign in again; service accounts are removed)",
  response: t.Object({ deleted: t.Literal(true) }),
  errors: [404],
  handler: ({ ctx }) => deleteSso(ctx),
});
