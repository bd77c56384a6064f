import { t } from "elysia";
import { AppError } from "#core/errors.ts";
import { route } from "#server/http/route.ts";
import { beginLogin } from "#services/auth/login.ts";
import { ssoButtons } from "#services/sso/config.ts";
import { csrfTokenOf } from "../_shared/csrf.ts";
import { redirect, safeNext, secondFactorCookies, sessionCookies } from "../_shared/session.ts";
import { LoginPage } from "./_view.tsx";

export const GET = route({
  access: "public",
  summary: "Sign-in page",
  html: true,
  query: t.Object({ next: t.Optional(t.String()), expired: t.Optional(t.String()) }),
  handler: async ({ ctx, query, request }) => (
    <LoginPage
      next={safeNext(query.next)}
      csrf={csrfTokenOf(request)}
      error={query.expired ? "The sign-in took too long: enter your e-mail and password again." : undefined}
      sso={await ssoButtons(ctx.db)}
    />
  ),
});

export const POST = route({
  access: "public",
  summary: "Sign in, step one: e-mail and password (step two asks for the code when two-factor is on)",
  html: true,
  body: t.Object({
    email: t.String(),
    password: t.String(),
    next: t.Optional(t.String()),
  }),
  handler: async ({ ctx, body, request, set }) => {
    const next = safeNext(body.next);
    try {
      const begun = await beginLogin(ctx, { email: body.email, password: body.password });
      if ("session" in begun) return redirect(next, sessionCookies(request, begun.session));
      return redirect(
        `/login/verify?next=${encodeURIComponent(next)}`,
        secondFactorCookies(request, begun.secondFactorToken),
      );
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      if (error.code === "rate_limited") {
        set.status = 429;
        set.headers["retry-after"] = String(error.details?.retry_after_s ?? 1);
      } else if (error.code === "unauthenticated") set.status = 401;
      // Password sign-in turned off for the user's organization: the SSO buttons are the way in.
      else if (error.code === "forbidden") set.status = 403;
      else throw error;
      return (
        <LoginPage
          email={body.email}
          error={error.message}
          next={next}
          csrf={csrfTokenOf(request)}
          sso={await ssoButtons(ctx.db)}
        />
      );
    }
  },
});
