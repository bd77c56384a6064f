import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { revokeScimToken } from "#services/scim/tokens.ts";
import { ScimTokenView } from "#services/sso/requests.ts";

export const DELETE = route({
  access: "sso:write",
  summary: "Revoke a SCIM token (the next SCIM request with it is 401)",
  params: t.Object({ id: t.String() }),
  response: ScimTokenView,
  errors: [404],
  handler: ({ ctx, params }) => revokeScimToken(ctx, params.id),
});
