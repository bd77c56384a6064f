// What the pools pages show besides the pools: the providers this process can use, and which one a
// pool gets when the form leaves it to the default (CONTRACTS: nosana once configured, else local).
import { providerIds } from "#core/domain.ts";
import type { PlatformRequestContext } from "#server/platform-context.ts";
import { actorOf } from "#services/context.ts";
import { defaultProviderId } from "#services/orchestration/providers.ts";
import type { ProviderChoice } from "./_view.tsx";

export async function providerChoices(
  ctx: PlatformRequestContext,
): Promise<{ providers: ProviderChoice[]; defaultProvider: string }> {
  const known = ctx.orchestration.providers;
  const providers = providerIds
    .filter((id) => known[id])
    .map((id) => ({ id, summary: known[id]?.summary ?? "" }));
  return { providers, defaultProvider: await defaultProviderId(ctx, actorOf(ctx).orgId) };
}
