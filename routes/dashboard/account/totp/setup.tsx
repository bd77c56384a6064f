import { route } from "#server/http/route.ts";
import { me } from "#services/auth/me.ts";
import { setupTotp } from "#services/auth/totp.ts";
import { pageInfo } from "../../_shared/page.ts";
import { AccountPage } from "../_view.tsx";
import { qrDataUrl } from "./_qr.ts";

export const POST = route({
  access: "authenticated",
  summary: "Start two-factor set-up: a new secret, shown with its QR code",
  html: true,
  handler: async ({ ctx, request, set }) => {
    const setup = await setupTotp(ctx);
    set.headers["cache-control"] = "no-store";
    return (
      <AccountPage
        page={await pageInfo(ctx, request)}
        me={await me(ctx)}
        setup={{ ...setup, qr: await qrDataUrl(setup.otpauth_url) }}
      />
    );
  },
});
