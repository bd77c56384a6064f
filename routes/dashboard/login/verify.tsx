import { t } from "elysia";
import { AppError } from "#core/errors.ts";
import { route } from "#server/http/route.ts";
import { completeLogin } from "#services/auth/login.ts";
import { csrfTokenOf } from "../_shared/csrf.ts";
import {
  readCookie,
  redirect,
  safeNext,
  secondFactorCookie,
  secondFactorCookies,
  sessionCookies,
} from "../_shared/session.ts";
import { SecondFactorPage } from "./_view.tsx";

export const GET = route({
  access: "public",
  summary: "Sign in, step two: the authenticator code",
  html: true,
  query: t.Object({ next: t.Optional(t.String()) }),
  handler: ({ query, request }) =>
    readCookie(request, secondFactorCookie) ? (
      <SecondFactorPage next={safeNext(query.next)} csrf={csrfTokenOf(request)} />
    ) : (
      redirect(`/login?next=${encodeURIComponent(safeNext(query.next))}`)
    ),
});

export const POST = route({
  access: "public",
  summary: "Sign in, step two: check the code and open the session",
  html: true,
  body: t.Object({ totp_code: t.String({ maxLength: 16 }), next: t.Optional(t.String()) }),
  handler: async ({ ctx, body, request, set }) => {
    const next = safeNext(body.next);
    const token = readCookie(request, secondFactorCookie);
    if (!token) return redirect(`/login?next=${encodeURIComponent(next)}`);
    try {
      const session = await completeLogin(ctx, { secondFactorToken: token, code: body.totp_code.trim() });
      return redirect(next, [
        ...sessionCookies(request, session),
        ...secondFactorCookies(request, undefined),
      ]);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      if (error.code === "unauthenticated")
        return redirect(
          `/login?expired=1&next=${encodeURIComponent(next)}`,
          secondFactorCookies(request, undefined),
        );
      if (error.code === "rate_limited") {
        set.status = 429;
        set.headers["retry-after"] = String(error.details?.retry_after_s ?? 1);
      } else if (error.code === "totp_required") set.status = 401;
      else throw error;
      return <SecondFactorPage error={error.message} next={next} csrf={csrfTokenOf(request)} />;
    }
  },
});
