// Choosing a provider by name, and what it offers (GET /deployment/provider/resources).
import type { ComputeProvider, ProviderResources } from "#adapters/providers/provider.ts";
import { type ProviderId, providerIds } from "#core/domain.ts";
import { invalid } from "#core/errors.ts";
import { isOneOf } from "#core/validation.ts";
import { type AppContext, actorOf, type RequestContext } from "../context.ts";
import { hasProviderCredentials, providerAccess } from "../provider-configs/access.ts";
import type { WithOrchestration } from "./runtime.ts";

/**
 * CONTRACTS: `nosana` when its credentials are configured (the organization's provider
 * configuration holds credentials for nosana, and this installation has the adapter), else `local`.
 */
export async function defaultProviderId(
  ctx: AppContext & WithOrchestration,
  orgId: string,
): Promise<ProviderId> {
  if (ctx.orchestration.providers.nosana && (await hasProviderCredentials(ctx, orgId, "nosana")))
    return "nosana";
  return "local";
}

/** The provider asked for, or the organization's default when the parameter is left out. */
export async function providerOrDefault(
  ctx: AppContext & WithOrchestration,
  orgId: string,
  name: string | undefined,
  field = "provider",
): Promise<ComputeProvider> {
  return providerNamed(
    ctx,
    name === undefined || name === "" ? await defaultProviderId(ctx, orgId) : name,
    field,
  );
}

export const isProviderId = (value: string): value is ProviderId => isOneOf(providerIds, value);

/** The provider named, or 400 naming `field`. */
export function providerNamed(
  ctx: AppContext & WithOrchestration,
  id: string,
  field = "provider",
): ComputeProvider {
  if (!isProviderId(id)) throw invalid(field, `unknown provider "${id}" (known: ${providerIds.join(", ")})`);
  const provider = ctx.orchestration.providers[id];
  if (!provider) {
    const available = providerIds.filter((p) => ctx.orchestration.providers[p]);
    throw invalid(
      field,
      `the ${id} provider is not available in this installation (available: ${available.join(", ")})`,
    );
  }
  return provider;
}

export async function providerResources(
  ctx: RequestContext & WithOrchestration,
  name: string | undefined,
): Promise<ProviderResources> {
  const orgId = actorOf(ctx).orgId;
  const provider = await providerOrDefault(ctx, orgId, name);
  return provider.listResources(await providerAccess(ctx, orgId, provider.id));
}
