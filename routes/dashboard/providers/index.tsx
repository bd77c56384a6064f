import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { listProviderConfigs } from "#services/provider-configs/config.ts";
import { pageInfo } from "../_shared/page.ts";
import { ProvidersPage } from "./_view.tsx";

export const GET = route({
  access: "providers:read",
  summary: "Provider configuration page",
  html: true,
  query: t.Object({ saved: t.Optional(t.String({ maxLength: 32 })) }),
  handler: async ({ ctx, request, query }) => (
    <ProvidersPage
      page={await pageInfo(ctx, request)}
      providers={(await listProviderConfigs(ctx)).providers}
      saved={query.saved}
    />
  ),
});
