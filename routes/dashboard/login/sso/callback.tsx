import { AppError } from "#core/errors.ts";
import { route } from "#server/http/route.ts";
import { ssoButtons } from "#services/sso/config.ts";
import { finishSsoSignIn } from "#services/sso/sign-in.ts";
import { csrfTokenOf } from "../../_shared/csrf.ts";
import { safeNext, sessionCookies } from "../../_shared/session.ts";
import { LoginPage } from "../_view.tsx";
import { callbackUrlOf } from "./_origin.ts";

/**
 * The session cookies are SameSite=Strict, and a browser withholds them from every request of a
 * navigation that began at another site, redirects included: a 303 from here would reach the
 * dashboard without them. This page is served once the cookies are set and moves on by itself (and
 * by its link), a navigation that starts on the dashboard's own site.
 */
function continuePage(next: string, cookies: string[]): Response {
  const href = Bun.escapeHTML(next);
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${href}"><title>Signed in · LLM platform</title></head><body><p><a href="${href}">Continue to the dashboard</a></p></body></html>`;
  const headers = new Headers({ "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
  for (const c of cookies) headers.append("set-cookie", c);
  return new Response(html, { status: 200, headers });
}

export const GET = route({
  access: "public",
  summary: "Single sign-on, callback: the identity provider's answer becomes a session",
  html: true,
  handler: async ({ ctx, request, set }) => {
    try {
      const { session, next } = await finishSsoSignIn(ctx, { callbackUrl: callbackUrlOf(request) });
      return continuePage(safeNext(next), sessionCookies(request, session));
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== "unauthenticated") throw error;
      set.status = 401;
      return <LoginPage error={error.message} csrf={csrfTokenOf(request)} sso={await ssoButtons(ctx.db)} />;
    }
  },
});
