// What a provider adapter receives of the organization's provider configuration: the reconciler
// reads it once per pass and hands it over with the pool or replica it works on.
import { createHmac } from "node:crypto";
import { and, eq, isNotNull } from "drizzle-orm";
import type { ProviderAccess } from "#adapters/providers/provider.ts";
import type { AccountDirectory } from "#adapters/providers/remote-accounts.ts";
import type { ProviderId } from "#core/domain.ts";
import { AppError, type FieldProblem } from "#core/errors.ts";
import { deployments, pools, providerConfigs, replicas } from "#db/schema/index.ts";
import type { AppContext } from "../context.ts";
import { providerCredentials, providerSettings } from "./config.ts";
import { providerUrlProblems } from "./urls.ts";

export async function providerAccess(
  ctx: Pick<AppContext, "db" | "config">,
  orgId: string,
  provider: ProviderId,
): Promise<ProviderAccess> {
  const [credentials, settings] = await Promise.all([
    providerCredentials(ctx, orgId, provider),
    providerSettings(ctx, orgId, provider),
  ]);
  // Stored settings are checked again: stored before the rule, or a name that now resolves inside.
  const problems = await providerUrlProblems(settings, ctx.config.providerUrls);
  if (problems.length > 0) {
    const first = problems[0] as FieldProblem;
    throw new AppError(
      "failed_precondition",
      `the ${provider} provider configuration's ${first.field} ${first.message}`,
      { fields: problems },
    );
  }
  return { credentials, settings };
}

/** The account directory the remote provider adapters use to find an organization's access. */
export function providerAccounts(ctx: Pick<AppContext, "db" | "config">): AccountDirectory {
  return {
    // Every process of one installation shares INTERNAL_API_KEY; the tag reveals nothing of it.
    installation: createHmac("sha256", ctx.config.internalApiKey)
      .update("provider-installation")
      .digest("hex")
      .slice(0, 8),
    async ofReplica(provider, replicaId) {
      const [row] = await ctx.db
        .select({ orgId: pools.orgId })
        .from(replicas)
        .innerJoin(deployments, eq(deployments.id, replicas.deploymentId))
        .innerJoin(pools, eq(pools.id, deployments.poolId))
        .where(and(eq(replicas.id, replicaId), eq(pools.provider, provider)))
        .limit(1);
      return row ? providerAccess(ctx, row.orgId, provider) : undefined;
    },
    async all(provider) {
      const rows = await ctx.db
        .select({ orgId: providerConfigs.orgId })
        .from(providerConfigs)
        .where(and(eq(providerConfigs.provider, provider), isNotNull(providerConfigs.credentialsSealed)));
      return Promise.all(rows.map((r) => providerAccess(ctx, r.orgId, provider)));
    },
  };
}

/** Whether the organization stored credentials for this provider (CONTRACTS: nosana is then the default). */
export async function hasProviderCredentials(
  ctx: Pick<AppContext, "db" | "config">,
  orgId: string,
  provider: ProviderId,
): Promise<boolean> {
  return (await providerCredentials(ctx, orgId, provider)) !== undefined;
}
