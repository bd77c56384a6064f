import { route } from "#server/http/route.ts";
import { enableTotp } from "#services/auth/totp.ts";
import { TotpCode, TotpState } from "../../_schemas/totp.ts";

export const POST = route({
  access: "authenticated",
  summary: "Turn two-factor sign-in on with a current code from the secret of /auth/totp/setup",
  body: TotpCode,
  response: TotpState,
  handler: ({ ctx, body }) => enableTotp(ctx, body.code),
});
