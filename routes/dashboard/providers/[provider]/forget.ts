import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { setProviderConfig } from "#services/provider-configs/config.ts";
import { redirect } from "../../_shared/session.ts";

export const POST = route({
  access: "providers:write",
  summary: "Remove a provider's stored credentials (after the page's confirmation)",
  html: true,
  params: t.Object({ provider: t.String() }),
  handler: async ({ ctx, params }) => {
    await setProviderConfig(ctx, { provider: params.provider, credentials: {} });
    return redirect(`/providers?saved=${encodeURIComponent(params.provider)}`);
  },
});
