import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { me } from "#services/auth/me.ts";
import { SessionUser } from "../_schemas/auth.ts";

export const GET = route({
  access: "authenticated",
  summary: "The signed-in user",
  response: t.Composite([SessionUser, t.Object({ totp_enabled: t.Boolean() })]),
  handler: ({ ctx }) => me(ctx),
});
