// A live (not deleted) deployment named by an id from a path or a body, for the services that act
// on a deployment's behalf (prompt processing, the guardrails scan) and need only whose it is.
import { and, eq, isNull } from "drizzle-orm";
import { notFound } from "#core/errors.ts";
import { uuidOr404 } from "#core/ids.ts";
import type { Executor } from "#db/client.ts";
import { deployments } from "#db/schema/index.ts";

/** The deployment's id and organization; with `orgId`, another organization's is not found (404). */
export async function liveDeploymentOrg(
  db: Executor,
  deploymentId: string,
  orgId: string | undefined,
): Promise<{ id: string; orgId: string }> {
  const id = uuidOr404(deploymentId, "deployment");
  const [deployment] = await db
    .select({ orgId: deployments.orgId })
    .from(deployments)
    .where(
      and(
        eq(deployments.id, id),
        isNull(deployments.deletedAt),
        ...(orgId ? [eq(deployments.orgId, orgId)] : []),
      ),
    )
    .limit(1);
  if (!deployment) throw notFound("deployment");
  return { id, orgId: deployment.orgId };
}
