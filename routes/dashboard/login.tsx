import { t } from "elysia";
import { csrfTokenOf } from "../../server/dashboard-csrf.ts";
import { redirect, safeNext, sessionCookies } from "../../server/dashboard-session.ts";
import { route } from "../../server/http/route.ts";
import { login } from "../../services/auth/login.ts";
import { AppError } from "../../services/errors.ts";
import { LoginPage } from "../../views/login.tsx";

export const GET = route({
  access: "public",
  summary: "Sign-in page",
  html: true,
  query: t.Object({ next: t.Optional(t.String()) }),
  handler: ({ query, request }) => <LoginPage next={safeNext(query.next)} csrf={csrfTokenOf(request)} />,
});

export const POST = route({
  access: "public",
  summary: "Sign in",
  html: true,
  body: t.Object({
    email: t.String(),
    password: t.String(),
    totp_code: t.Optional(t.String({ maxLength: 16 })),
    next: t.Optional(t.String()),
  }),
  handler: async ({ ctx, body, request, set }) => {
    try {
      const session = await login(ctx, {
        email: body.email,
        password: body.password,
        totp_code: body.totp_code || undefined,
      });
      return redirect(safeNext(body.next), sessionCookies(request, session));
    } catch (error) {
      if (
        !(error instanceof AppError) ||
        (error.code !== "unauthenticated" && error.code !== "totp_required")
      )
        throw error;
      set.status = 401;
      return (
        <LoginPage
          email={body.email}
          error={error.message}
          next={safeNext(body.next)}
          csrf={csrfTokenOf(request)}
        />
      );
    }
  },
});
