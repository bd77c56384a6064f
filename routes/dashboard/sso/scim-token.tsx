import { route } from "#server/http/route.ts";
import { createScimToken } from "#services/scim/tokens.ts";
import { renderSsoPage } from "./_page.tsx";

export const POST = route({
  access: "sso:write",
  summary: "Make a SCIM token; the page shows it once",
  html: true,
  handler: async ({ ctx, request }) =>
    renderSsoPage(ctx, request, { newToken: (await createScimToken(ctx)).token }),
});
