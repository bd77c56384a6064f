import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { setupTotp } from "#services/auth/totp.ts";

export const POST = route({
  access: "authenticated",
  summary: "Start two-factor setup: a new TOTP secret (not in force until verified)",
  description:
    "Add the secret to an authenticator app (or scan otpauth_url as a QR code), then call /auth/totp/verify.",
  response: t.Object({
    secret: t.String({ description: "Base32" }),
    otpauth_url: t.String({ description: "otpauth://totp/… for authenticator apps" }),
  }),
  handler: ({ ctx }) => setupTotp(ctx),
});
