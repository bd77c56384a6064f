import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { putSso } from "#services/sso/config.ts";
import { attempt } from "../_shared/form.ts";
import { redirect } from "../_shared/session.ts";
import { ssoInputOf } from "./_form.ts";
import { renderSsoPage } from "./_page.tsx";

export const GET = route({
  access: "sso:read",
  summary: "Single sign-on page",
  html: true,
  query: t.Object({ saved: t.Optional(t.String({ maxLength: 8 })) }),
  handler: ({ ctx, request, query }) => renderSsoPage(ctx, request, { saved: query.saved !== undefined }),
});

export const POST = route({
  access: "sso:write",
  summary: "Save the single sign-on configuration from the form",
  html: true,
  body: t.Record(t.String(), t.Unknown()),
  handler: async ({ ctx, body, request, set }) => {
    const { input, errors } = ssoInputOf(body);
    const saved = input
      ? await attempt(() => putSso(ctx, input))
      : ({ ok: false, errors: errors ?? {} } as const);
    if (saved.ok) return redirect("/sso?saved=1");
    set.status = 422;
    const { client_secret: _secret, ...values } = body;
    return renderSsoPage(ctx, request, { errors: saved.errors, values });
  },
});
