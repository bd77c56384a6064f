// A pool's size: the most replicas its deployments may want at once, each replica being one node (a
// worker process, a pod, a VM, a lease, a job). Checked where replicas are asked for (deploy, scale,
// start), with the pool's row locked so that two requests at once cannot both take the last room.
import { and, eq, isNull, ne, sum } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { deployments, pools } from "../../db/schema/index.ts";
import { AppError } from "../errors.ts";

/**
 * Throws 409 `conflict` (failed_precondition, naming `replicas`) when `replicas` more, beside what the pool's other running
 * deployments want, would exceed the pool's size. A pool without a size takes any number.
 */
export async function assertPoolHasRoom(
  tx: Executor,
  poolId: string,
  replicas: number,
  deploymentId?: string,
): Promise<void> {
  const [pool] = await tx
    .select({ name: pools.name, size: pools.size })
    .from(pools)
    .where(eq(pools.id, poolId))
    .for("update");
  if (!pool || pool.size === null) return;
  const others = [
    eq(deployments.poolId, poolId),
    isNull(deployments.deletedAt),
    eq(deployments.desiredState, "running"),
  ];
  if (deploymentId) others.push(ne(deployments.id, deploymentId));
  const [wanted] = await tx
    .select({ replicas: sum(deployments.replicas).mapWith(Number) })
    .from(deployments)
    .where(and(...others));
  const taken = wanted?.replicas ?? 0;
  if (taken + replicas <= pool.size) return;
  const room = Math.max(0, pool.size - taken);
  const message = `at most ${room}: pool ${pool.name} has size ${pool.size} and its other deployments want ${taken}`;
  throw new AppError("failed_precondition", `replicas: ${message}`, {
    fields: [{ field: "replicas", message }],
  });
}
