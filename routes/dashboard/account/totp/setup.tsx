import { pageInfo } from "../../../../server/dashboard/page.ts";
import { qrDataUrl } from "../../../../server/dashboard/qr.ts";
import { route } from "../../../../server/http/route.ts";
import { me } from "../../../../services/auth/me.ts";
import { setupTotp } from "../../../../services/auth/totp.ts";
import { AccountPage } from "../../../../views/account.tsx";

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
