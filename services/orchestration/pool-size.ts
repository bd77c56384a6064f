// A pool's size: the most replicas its deployments may want at once, each replica being one node (a
// worker process, a pod, a VM, a lease, a job). Checked where replicas are asked for (deploy, scale,
// start), with the pool's row locked so that two requests at once cannot both take the last room.
import { and, eq, isNull, ne, sum } from "drizzle-orm";
import { AppError } from "#core/errors.ts";
import type { Executor } from "#db/client.ts";
import { deployments, pools } from "#db/schema/index.ts";

/** What a sized pool has room for beside its other running deployments; null: the pool has no size. */
export async function poolRoom(
  tx: Executor,
  poolId: string,
  deploymentId?: string,
  lock = false,
): Promise<{ name: string; size: number; taken: number } | null> {
  const query = tx.select({ name: pools.name, size: pools.size }).from(pools).where(eq(pools.id, poolId));
  const [pool] = lock ? await query.for("update") : await query;
  if (!pool || pool.size === null) return null;
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
  return { name: pool.name, size: pool.size, taken: wanted?.replicas ?? 0 };
}

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
  const pool = await poolRoom(tx, poolId, deploymentId, true);
  if (!pool) return;
  const { taken } = pool;
  if (taken + replicas <= pool.size) return;
  const room = Math.max(0, pool.size - taken);
  const message = `at most ${room}: pool ${pool.name} has size ${pool.size} and its other deployments want ${taken}`;
  throw new AppError("failed_precondition", `replicas: ${message}`, {
    fields: [{ field: "replicas", message }],
  });
}
