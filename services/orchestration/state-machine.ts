// The deployment and pool state machines of CONTRACTS, in one place. Every status change of a
// deployment or a pool goes through here: the move is checked against the table, applied only if
// the row is still in the state it was read in (so the API and the reconciler cannot overwrite each
// other), and, for deployments, recorded in deployment_transitions with its time and reason.
import { and, eq } from "drizzle-orm";
import type { DeploymentState, PoolState } from "#core/domain.ts";
import { AppError } from "#core/errors.ts";
import type { Executor } from "#db/client.ts";
import {
  type DeploymentRow,
  deployments,
  deploymentTransitions,
  type PoolRow,
  pools,
} from "#db/schema/index.ts";

/** Where each state may go. Any state may go to FAILED (with a reason). */
const deploymentMoves: Record<DeploymentState, readonly DeploymentState[]> = {
  DEPLOYING: ["RUNNING", "FAILED"],
  RUNNING: ["STOPPING", "FAILED"],
  STOPPING: ["STOPPED", "FAILED"],
  STOPPED: ["DEPLOYING", "FAILED"],
  FAILED: ["DEPLOYING"],
};

/** Pools: Provisioning -> Active; Active -> Deleting -> gone; Failed from anywhere but Deleting. */
const poolMoves: Record<PoolState, readonly PoolState[]> = {
  Provisioning: ["Active", "Failed", "Deleting"],
  Active: ["Deleting", "Failed"],
  Failed: ["Deleting"],
  Deleting: [],
};

/** What a user operation needs, for the 409 message. */
const operationOf: Partial<Record<DeploymentState, string>> = {
  DEPLOYING: "start",
  STOPPING: "terminate",
};

export function canMoveDeployment(from: DeploymentState, to: DeploymentState): boolean {
  return deploymentMoves[from].includes(to);
}

export function assertDeploymentMove(from: DeploymentState, to: DeploymentState): void {
  if (canMoveDeployment(from, to)) return;
  const allowed = (Object.keys(deploymentMoves) as DeploymentState[]).filter((s) =>
    deploymentMoves[s].includes(to),
  );
  const operation = operationOf[to];
  throw new AppError(
    "failed_precondition",
    operation
      ? `cannot ${operation} a deployment that is ${from} (it must be ${allowed.join(" or ")})`
      : `a deployment cannot go from ${from} to ${to}`,
    { state: from, allowed_from: allowed },
  );
}

const removableStates: readonly DeploymentState[] = ["STOPPED", "FAILED"];

/** Delete removes a STOPPED or FAILED deployment only. */
export function assertDeploymentRemovable(status: DeploymentState): void {
  if (removableStates.includes(status)) return;
  throw new AppError(
    "failed_precondition",
    `cannot delete a deployment that is ${status} (terminate it first, or wait until it is STOPPED or FAILED)`,
    { state: status, allowed_from: ["STOPPED", "FAILED"] },
  );
}

export type DeploymentAction = "start" | "terminate" | "delete";

/**
 * What a user may do with a deployment in this state, read from the tables above, so the dashboard
 * offers exactly the buttons the API would accept.
 */
export function deploymentActions(status: DeploymentState): DeploymentAction[] {
  const actions: DeploymentAction[] = [];
  if (canMoveDeployment(status, "DEPLOYING")) actions.push("start");
  if (canMoveDeployment(status, "STOPPING")) actions.push("terminate");
  if (removableStates.includes(status)) actions.push("delete");
  return actions;
}

/** The first transition of a new deployment: into DEPLOYING. */
export async function recordDeploymentCreated(db: Executor, deploymentId: string, at: Date): Promise<void> {
  await db.insert(deploymentTransitions).values({
    deploymentId,
    fromState: null,
    toState: "DEPLOYING",
    reason: "deployment accepted",
    at,
  });
}

/**
 * Moves a deployment from the state it was read in to `to`. Throws failed_precondition when the
 * move is not in the table, or when someone else changed the state in the meantime.
 */
export async function moveDeployment(
  db: Executor,
  deployment: Pick<DeploymentRow, "id" | "status">,
  to: DeploymentState,
  reason: string,
  at: Date,
): Promise<DeploymentRow> {
  assertDeploymentMove(deployment.status, to);
  const [row] = await db
    .update(deployments)
    .set({ status: to, failureReason: to === "FAILED" ? reason : null, updatedAt: at })
    .where(and(eq(deployments.id, deployment.id), eq(deployments.status, deployment.status)))
    .returning();
  if (!row) throw new AppError("failed_precondition", "the deployment changed meanwhile; read it again");
  await db.insert(deploymentTransitions).values({
    deploymentId: deployment.id,
    fromState: deployment.status,
    toState: to,
    reason,
    at,
  });
  return row;
}

export function canMovePool(from: PoolState, to: PoolState): boolean {
  return poolMoves[from].includes(to);
}

/** Whether a pool in this state may be asked to go (its live deployments are checked when asked). */
export const poolDeletable = (state: PoolState): boolean => canMovePool(state, "Deleting");

export function assertPoolMove(from: PoolState, to: PoolState): void {
  if (canMovePool(from, to)) return;
  throw new AppError("failed_precondition", `a pool cannot go from ${from} to ${to}`, { state: from });
}

export async function movePool(
  db: Executor,
  pool: Pick<PoolRow, "id" | "state">,
  to: PoolState,
  reason: string | null,
  at: Date,
): Promise<PoolRow> {
  assertPoolMove(pool.state, to);
  const [row] = await db
    .update(pools)
    .set({ state: to, failureReason: to === "Failed" ? reason : null, updatedAt: at })
    .where(and(eq(pools.id, pool.id), eq(pools.state, pool.state)))
    .returning();
  if (!row) throw new AppError("failed_precondition", "the pool changed meanwhile; read it again");
  return row;
}

/** A pool is deleted only once nothing on it runs or is about to (CONTRACTS: 409 otherwise). */
export function assertPoolRemovable(pool: Pick<PoolRow, "state">, liveDeployments: string[]): void {
  if (!poolDeletable(pool.state))
    throw new AppError("failed_precondition", "the pool is already being deleted");
  if (liveDeployments.length === 0) return;
  throw new AppError(
    "failed_precondition",
    `the pool still hosts deployments that are not stopped: ${liveDeployments.slice(0, 5).join(", ")}`,
    { deployments: liveDeployments },
  );
}

/**
 * An autoscaling decision: the wanted replica count changes (only if nobody changed it meanwhile) and
 * the deployment's history records it as a transition that keeps its state, with its reason. `to`
 * equal to the current count records a scale-up that a bound stopped.
 */
export async function recordScaleDecision(
  db: Executor,
  deployment: Pick<DeploymentRow, "id" | "status" | "replicas">,
  to: number,
  reason: string,
  at: Date,
): Promise<boolean> {
  // One transaction: a reader must never see the new replica count without the decision that set it
  // (the API's view and the autoscaling tests read both together).
  return db.transaction(async (tx) => {
    if (to !== deployment.replicas) {
      const [row] = await tx
        .update(deployments)
        .set({ replicas: to, updatedAt: at })
        .where(
          and(
            eq(deployments.id, deployment.id),
            eq(deployments.status, deployment.status),
            eq(deployments.replicas, deployment.replicas),
          ),
        )
        .returning({ id: deployments.id });
      if (!row) return false;
    }
    await tx.insert(deploymentTransitions).values({
      deploymentId: deployment.id,
      fromState: deployment.status,
      toState: deployment.status,
      reason,
      fromReplicas: deployment.replicas,
      toReplicas: to,
      at,
    });
    return true;
  });
}
