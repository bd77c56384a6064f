import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { createScimToken, listScimTokens } from "#services/scim/tokens.ts";
import { NewScimToken, ScimTokenView } from "#services/sso/requests.ts";

export const GET = route({
  access: "sso:read",
  summary: "Your organization's SCIM tokens (never their value)",
  response: t.Object({ tokens: t.Array(ScimTokenView) }),
  handler: ({ ctx }) => listScimTokens(ctx),
});

export const POST = route({
  access: "sso:write",
  summary: "Make a SCIM token for your identity provider (`token` is shown in this answer only)",
  status: 201,
  response: NewScimToken,
  handler: ({ ctx }) => createScimToken(ctx),
});
