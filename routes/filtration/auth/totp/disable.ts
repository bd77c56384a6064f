import { route } from "#server/http/route.ts";
import { disableTotp } from "#services/auth/totp.ts";
import { TotpCode, TotpState } from "../../_schemas/totp.ts";

export const POST = route({
  access: "authenticated",
  summary: "Turn two-factor sign-in off with a current code",
  body: TotpCode,
  response: TotpState,
  handler: ({ ctx, body }) => disableTotp(ctx, body.code),
});
