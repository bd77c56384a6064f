import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { switchOrganization } from "#services/auth/organizations.ts";
import { redirect, safeNext, sessionCookies } from "./_shared/session.ts";

export const POST = route({
  access: "authenticated",
  summary: "Switch the session to another organization (the header's switcher)",
  html: true,
  body: t.Object({ org_id: t.String({ format: "uuid" }), next: t.Optional(t.String()) }),
  handler: async ({ ctx, body, request }) => {
    const session = await switchOrganization(ctx, body.org_id);
    // The page asked for may not exist in the other organization (a deployment's detail): go to its list.
    const next = safeNext(body.next).split("?")[0]?.split("/").slice(0, 2).join("/") || "/";
    return redirect(next, sessionCookies(request, session));
  },
});
