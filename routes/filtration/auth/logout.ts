import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { signOut } from "#services/auth/sign-out.ts";

export const POST = route({
  access: "authenticated",
  summary: "Sign out: end this session",
  description:
    "The session of the access token presented ends at once: its refresh token and every access token " +
    "issued from it get 401 on every gateway and the gRPC port. Other sessions of the user stay.",
  response: t.Object({ signed_out: t.Literal(true) }),
  handler: async ({ ctx }) => {
    await signOut(ctx);
    return { signed_out: true as const };
  },
});
