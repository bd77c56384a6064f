// What a provider adapter receives of the organization's provider configuration: the reconciler
// reads it once per pass and hands it over with the pool or replica it works on.
import type { ProviderAccess } from "../../adapters/providers/provider.ts";
import type { ProviderId } from "../../db/schema/pools.ts";
import type { AppContext } from "../context.ts";
import { providerCredentials, providerSettings } from "./config.ts";

export async function providerAccess(
  ctx: Pick<AppContext, "db" | "config">,
  orgId: string,
  provider: ProviderId,
): Promise<ProviderAccess> {
  const [credentials, settings] = await Promise.all([
    providerCredentials(ctx, orgId, provider),
    providerSettings(ctx, orgId, provider),
  ]);
  return { credentials, settings };
}
