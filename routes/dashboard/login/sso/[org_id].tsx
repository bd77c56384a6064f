import { t } from "elysia";
import { notFound } from "#core/errors.ts";
import { route } from "#server/http/route.ts";
import { uuidPattern } from "#services/auth/session.ts";
import { startSsoSignIn } from "#services/sso/sign-in.ts";
import { redirect, safeNext } from "../../_shared/session.ts";
import { redirectUriOf } from "./_origin.ts";

export const GET = route({
  access: "public",
  summary: "Single sign-on, start: off to the organization's identity provider",
  html: true,
  params: t.Object({ org_id: t.String() }),
  query: t.Object({ next: t.Optional(t.String()) }),
  handler: async ({ ctx, params, query, request }) => {
    if (!uuidPattern.test(params.org_id)) throw notFound("single sign-on for that organization");
    const url = await startSsoSignIn(ctx, {
      orgId: params.org_id,
      redirectUri: redirectUriOf(request),
      next: safeNext(query.next),
    });
    return redirect(url.href);
  },
});
