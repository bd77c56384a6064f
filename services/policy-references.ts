// Which policies point at a record a user is about to delete: a collection (`rag` policies list it in
// `collection_ids`) or a prompt template (`prompt` policies name it in `template_id`). Deleting it from
// under them would make those deployments fail or silently change, so the delete is refused with their
// names instead (as a pool that still hosts deployments is).
import { and, eq, sql } from "drizzle-orm";
import { AppError } from "#core/errors.ts";
import type { Executor } from "#db/client.ts";
import { deployments, policies } from "#db/schema/index.ts";

type Reference = { policy: "rag"; collectionId: string } | { policy: "prompt"; templateId: string };

/** The deployments (or "the organization") whose policy refers to the record. */
async function referringScopes(tx: Executor, orgId: string, ref: Reference): Promise<string[]> {
  const refers =
    ref.policy === "rag"
      ? sql`${policies.config}->'collection_ids' ? ${ref.collectionId}`
      : sql`${policies.config}->>'template_id' = ${ref.templateId}`;
  const rows = await tx
    .select({ deployment: deployments.name })
    .from(policies)
    .leftJoin(deployments, eq(deployments.id, policies.deploymentId))
    .where(and(eq(policies.orgId, orgId), eq(policies.policyType, ref.policy), refers));
  return rows.map((r) => (r.deployment === null ? "the organization" : `deployment ${r.deployment}`));
}

/** Throws 409 naming the policies that still refer to the record. */
export async function refuseIfReferenced(tx: Executor, orgId: string, what: string, ref: Reference) {
  const scopes = await referringScopes(tx, orgId, ref);
  if (scopes.length === 0) return;
  throw new AppError(
    "failed_precondition",
    `${what} is used by the ${ref.policy} policy of ${scopes.join(", ")}: change or delete that policy first`,
  );
}
