import { route } from "#server/http/route.ts";
import { deleteSso } from "#services/sso/config.ts";
import { redirect } from "../_shared/session.ts";

export const POST = route({
  access: "sso:write",
  summary: "Remove single sign-on",
  html: true,
  handler: async ({ ctx }) => {
    await deleteSso(ctx);
    return redirect("/sso");
  },
});
