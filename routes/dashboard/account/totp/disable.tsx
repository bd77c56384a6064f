import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { me } from "#services/auth/me.ts";
import { disableTotp } from "#services/auth/totp.ts";
import { attempt } from "../../_shared/form.ts";
import { pageInfo } from "../../_shared/page.ts";
import { redirect } from "../../_shared/session.ts";
import { AccountPage } from "../_view.tsx";

export const POST = route({
  access: "authenticated",
  summary: "Turn two-factor sign-in off with a current code (after the page's confirmation)",
  html: true,
  body: t.Object({ code: t.String({ maxLength: 16 }) }),
  handler: async ({ ctx, body, request, set }) => {
    const done = await attempt(() => disableTotp(ctx, body.code.trim()));
    if (done.ok) return redirect("/account?done=off");
    set.status = 422;
    return (
      <AccountPage page={await pageInfo(ctx, request)} me={await me(ctx)} form={{ errors: done.errors }} />
    );
  },
});
