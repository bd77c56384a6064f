import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { me } from "#services/auth/me.ts";
import { enableTotp } from "#services/auth/totp.ts";
import { attempt } from "../../_shared/form.ts";
import { pageInfo } from "../../_shared/page.ts";
import { redirect } from "../../_shared/session.ts";
import { AccountPage } from "../_view.tsx";
import { qrDataUrl } from "./_qr.ts";

export const POST = route({
  access: "authenticated",
  summary: "Turn two-factor sign-in on with a code from the new secret",
  html: true,
  body: t.Object({
    code: t.String({ maxLength: 16 }),
    secret: t.Optional(t.String({ maxLength: 128 })),
    otpauth_url: t.Optional(t.String({ maxLength: 1024 })),
  }),
  handler: async ({ ctx, body, request, set }) => {
    const done = await attempt(() => enableTotp(ctx, body.code.trim()));
    if (done.ok) return redirect("/account?done=on");
    set.status = 422;
    set.headers["cache-control"] = "no-store";
    const setup =
      body.secret && body.otpauth_url?.startsWith("otpauth://")
        ? { secret: body.secret, otpauth_url: body.otpauth_url, qr: await qrDataUrl(body.otpauth_url) }
        : undefined;
    return (
      <AccountPage
        page={await pageInfo(ctx, request)}
        me={await me(ctx)}
        setup={setup}
        form={{ errors: done.errors }}
      />
    );
  },
});
