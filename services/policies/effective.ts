// The policies that apply to one deployment, every type at once, for the inference context: the
// deployment's own policy of a type replaces the organization's of that type as a whole (no field
// merge, so what a deployment sets is exactly what it gets). Types set nowhere are absent.
import { and, eq, isNull, or } from "drizzle-orm";
import type { PolicyType } from "#core/domain.ts";
import { type EffectivePolicies, storedConfigs } from "#core/policies.ts";
import type { Executor } from "#db/client.ts";
import { policies } from "#db/schema/index.ts";

export type { EffectivePolicies };

export async function effectivePolicies(
  db: Executor,
  orgId: string,
  deploymentId: string | undefined,
): Promise<EffectivePolicies> {
  const rows = await db
    .select({ type: policies.policyType, deploymentId: policies.deploymentId, config: policies.config })
    .from(policies)
    .where(
      and(
        eq(policies.orgId, orgId),
        // A key's budget is read with the key (services/spend/budgets.ts), never as the organization's.
        isNull(policies.apiKeyId),
        deploymentId
          ? or(isNull(policies.deploymentId), eq(policies.deploymentId, deploymentId))
          : isNull(policies.deploymentId),
      ),
    );
  const chosen = new Map<PolicyType, { own: boolean; config: unknown }>();
  for (const row of rows) {
    const own = row.deploymentId !== null;
    const seen = chosen.get(row.type);
    if (!seen || (own && !seen.own)) chosen.set(row.type, { own, config: row.config });
  }
  return storedConfigs(Object.fromEntries([...chosen].map(([type, { config }]) => [type, config])));
}
