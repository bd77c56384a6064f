// Choosing a provider by name, and what it offers (GET /deployment/provider/resources).
import type { ComputeProvider, ProviderResources } from "../../adapters/providers/provider.ts";
import { type ProviderId, providerIds } from "../../db/schema/pools.ts";
import type { AppContext } from "../context.ts";
import { invalid } from "../errors.ts";
import { orchestrationOf } from "./runtime.ts";

/**
 * CONTRACTS: `nosana` when its credentials are configured, else `local`. Provider credentials are
 * configured through the filtration gateway's provider configuration, which no provider here reads
 * yet, so the default is `local` until the nosana adapter exists.
 */
export function defaultProviderId(_ctx: AppContext): ProviderId {
  return "local";
}

export const isProviderId = (value: string): value is ProviderId =>
  (providerIds as readonly string[]).includes(value);

/** The provider named (or the default), or 400 naming `field`. */
export function providerNamed(
  ctx: AppContext,
  name: string | undefined,
  field = "provider",
): ComputeProvider {
  const id = name === undefined || name === "" ? defaultProviderId(ctx) : name;
  if (!isProviderId(id)) throw invalid(field, `unknown provider "${id}" (known: ${providerIds.join(", ")})`);
  const provider = orchestrationOf(ctx).providers[id];
  if (!provider) {
    const available = providerIds.filter((p) => orchestrationOf(ctx).providers[p]);
    throw invalid(
      field,
      `the ${id} provider is not available in this installation (available: ${available.join(", ")})`,
    );
  }
  return provider;
}

export async function providerResources(
  ctx: AppContext,
  name: string | undefined,
): Promise<ProviderResources> {
  return providerNamed(ctx, name).listResources();
}
