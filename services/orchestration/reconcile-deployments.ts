// One pass over the deployments: every live deployment (and every deleted one whose replicas are not
// cleaned up yet) read with its pool, replicas and nodes in four queries, then moved toward what is
// wanted by deployment-pass.ts, each in its own span.

import { inArray, isNull, or } from "drizzle-orm";
import type { NodeState } from "#core/domain.ts";
import { deployments, nodes, pools, replicas } from "#db/schema/index.ts";
import type { Logger } from "../context.ts";
import { inSpan, type Span } from "../telemetry/tracing.ts";
import type { DeploymentPass } from "./deployment-pass.ts";

/** Returns whether something is on its way (a deployment deploying or stopping): look again sooner. */
export async function reconcileDeployments(
  pass: DeploymentPass,
  log: Logger,
  passSpan: Span | undefined,
): Promise<boolean> {
  const { ctx } = pass;
  const withReplicas = ctx.db.selectDistinct({ id: replicas.deploymentId }).from(replicas);
  const rows = await ctx.db
    .select()
    .from(deployments)
    .where(or(isNull(deployments.deletedAt), inArray(deployments.id, withReplicas)));
  if (rows.length === 0) return false;
  const poolRows = await ctx.db
    .select()
    .from(pools)
    .where(inArray(pools.id, [...new Set(rows.map((d) => d.poolId))]));
  const replicaRows = await ctx.db
    .select()
    .from(replicas)
    .where(
      inArray(
        replicas.deploymentId,
        rows.map((d) => d.id),
      ),
    );
  const nodeStates = await nodeStatesOf(
    pass,
    poolRows.map((p) => p.id),
  );
  const onItsWay = rows.some((d) => d.status === "DEPLOYING" || d.status === "STOPPING");
  for (const d of rows) {
    try {
      await inSpan(
        ctx.tracer,
        "reconcile deployment",
        { "llm.deployment.id": d.id, "llm.deployment.name": d.name, "llm.deployment.status": d.status },
        () =>
          pass.reconcileDeployment(
            d,
            poolRows.find((p) => p.id === d.poolId),
            replicaRows.filter((r) => r.deploymentId === d.id),
            nodeStates,
          ),
        { parent: passSpan },
      );
    } catch (error) {
      log.warn("deployment pass failed; retried next pass", { deployment_id: d.id, error });
    }
  }
  return onItsWay;
}

/** The state of every node of the given pools, by `poolId/instance`. */
async function nodeStatesOf({ ctx }: DeploymentPass, poolIds: string[]): Promise<Map<string, NodeState>> {
  const nodeRows = await ctx.db
    .select({ poolId: nodes.poolId, instance: nodes.providerInstanceId, state: nodes.state })
    .from(nodes)
    .where(inArray(nodes.poolId, poolIds));
  return new Map<string, NodeState>(nodeRows.map((n) => [`${n.poolId}/${n.instance}`, n.state]));
}
