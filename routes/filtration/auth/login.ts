import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { login } from "#services/auth/login.ts";
import { Session } from "../_schemas/auth.ts";

export const POST = route({
  access: "public",
  summary: "Sign in with e-mail and password (and a TOTP code when two-factor is on)",
  body: t.Object({
    email: t.String({ minLength: 3, maxLength: 320 }),
    password: t.String({ minLength: 1, maxLength: 1024 }),
    totp_code: t.Optional(t.String({ maxLength: 16 })),
  }),
  response: Session,
  handler: ({ ctx, body }) => login(ctx, body),
});
