// The node inventory: heartbeats upsert a pool's nodes; a node silent for three intervals turns
// UNHEALTHY (and its replica stops being routed to, see the reconciler). Heartbeats are telemetry
// from machines, many a minute: they are not audited like user changes.
import { and, eq, inArray, lt, notExists, notInArray, sql } from "drizzle-orm";
import type { Heartbeat } from "#contracts/orchestration/heartbeat.ts";
import { type NodeState, nodeStates } from "#core/domain.ts";
import { AppError, invalid } from "#core/errors.ts";
import { isUuid } from "#core/ids.ts";
import { isOneOf, Problems } from "#core/validation.ts";
import { deployments, nodes, type PoolRow, pools, replicas } from "#db/schema/index.ts";
import type { AppContext, RequestContext } from "../context.ts";
import { poolOfNodeToken } from "./node-token.ts";
import { type NodeView, nodeView } from "./views.ts";

/** The heartbeat as the route checked it (contracts/orchestration/heartbeat.ts). */
export type HeartbeatInput = Heartbeat;

export const missedHeartbeatsBeforeUnhealthy = 3;

const count = (n: number | undefined) => (n === undefined ? 0 : Math.max(0, Math.round(n)));

/**
 * Records a heartbeat. The pool is the one the node token belongs to; a caller authenticated with
 * the internal key instead names it with `pool_id`.
 */
export async function recordHeartbeat(
  ctx: RequestContext,
  credentials: { nodeToken: string | undefined },
  input: HeartbeatInput,
): Promise<{ node: NodeView; heartbeat_interval_ms: number }> {
  let pool: PoolRow | undefined = credentials.nodeToken
    ? await poolOfNodeToken(ctx, credentials.nodeToken)
    : undefined;
  if (!pool) {
    // The access guard let the call in, and not with a node token: it holds the internal key.
    if (!input.pool_id) throw invalid("pool_id", "is required with the internal API key");
    if (isUuid(input.pool_id))
      [pool] = await ctx.db.select().from(pools).where(eq(pools.id, input.pool_id)).limit(1);
    if (!pool) throw new AppError("not_found", "pool not found");
  }
  const problems = new Problems();
  const instanceId = input.provider_instance_id?.trim() ?? "";
  if (instanceId === "" || instanceId.length > 256)
    problems.add("provider_instance_id", "is required (at most 256 characters)");
  const state = (input.state ?? "READY").toUpperCase();
  // Not one of them: a problem, and throwIfAny() below throws before the stand-in is read.
  const nodeState: NodeState = isOneOf(nodeStates, state) ? state : "READY";
  if (nodeState !== state) problems.add("state", `must be one of ${nodeStates.join(", ")}`);
  if (input.health_score !== undefined && (input.health_score < 0 || input.health_score > 100)) {
    problems.add("health_score", "must be from 0 to 100");
  }
  if (input.provider && input.provider !== pool.provider) {
    problems.add("provider", `this pool's provider is ${pool.provider}`);
  }
  problems.throwIfAny();

  const now = ctx.clock();
  const values = {
    provider: pool.provider,
    gpuAllocated: count(input.gpu_allocated),
    vcpuAllocated: count(input.vcpu_allocated),
    ramGbAllocated: count(input.ram_gb_allocated),
    healthScore: input.health_score === undefined ? 100 : Math.round(input.health_score),
    state: nodeState,
    exposeUrl: input.expose_url || null,
    lastHeartbeatAt: now,
  };
  const [row] = await ctx.db
    .insert(nodes)
    .values({ poolId: pool.id, providerInstanceId: instanceId, ...values })
    .onConflictDoUpdate({ target: [nodes.poolId, nodes.providerInstanceId], set: values })
    .returning();
  if (!row) throw new Error("heartbeat upsert returned nothing");
  return { node: nodeView(row), heartbeat_interval_ms: ctx.config.heartbeatIntervalMs };
}

/** READY nodes without a heartbeat for three intervals turn UNHEALTHY. Returns how many did. */
export async function markSilentNodes(ctx: AppContext): Promise<number> {
  const cutoff = new Date(
    ctx.clock().getTime() - missedHeartbeatsBeforeUnhealthy * ctx.config.heartbeatIntervalMs,
  );
  const changed = await ctx.db
    .update(nodes)
    .set({ state: "UNHEALTHY", healthScore: 0 })
    .where(and(eq(nodes.state, "READY"), lt(nodes.lastHeartbeatAt, cutoff)))
    .returning({ id: nodes.id });
  return changed.length;
}

/** An instance the reconciler stopped will not report again: OFFLINE, not a health problem. */
export async function markInstanceOffline(
  ctx: AppContext,
  poolId: string,
  providerInstanceId: string,
): Promise<void> {
  await ctx.db
    .update(nodes)
    .set({ state: "OFFLINE" })
    .where(and(eq(nodes.poolId, poolId), eq(nodes.providerInstanceId, providerInstanceId)));
}

export interface RetiredNode {
  poolId: string;
  providerInstanceId: string;
  state: NodeState;
}

/**
 * Retires stale nodes: OFFLINE or UNHEALTHY, without a heartbeat for NODE_RETIRE_AFTER_S, and hosting
 * no replica that is still wanted (one not STOPPED or FAILED of a deployment in the same pool). So a
 * pool lists the machines it has, not every worker it ever had; a node that reports again comes back.
 * Logged (not audited: nodes are telemetry, as their heartbeats).
 */
export async function retireStaleNodes(ctx: AppContext): Promise<RetiredNode[]> {
  const cutoff = new Date(ctx.clock().getTime() - ctx.config.nodeRetireAfterS * 1000);
  const liveReplica = ctx.db
    .select({ one: sql`1` })
    .from(replicas)
    .innerJoin(deployments, eq(deployments.id, replicas.deploymentId))
    .where(
      and(
        eq(deployments.poolId, nodes.poolId),
        eq(replicas.providerInstanceId, nodes.providerInstanceId),
        notInArray(replicas.state, ["STOPPED", "FAILED"]),
      ),
    );
  const retired = await ctx.db
    .delete(nodes)
    .where(
      and(
        inArray(nodes.state, ["OFFLINE", "UNHEALTHY"]),
        lt(nodes.lastHeartbeatAt, cutoff),
        notExists(liveReplica),
      ),
    )
    .returning({ poolId: nodes.poolId, providerInstanceId: nodes.providerInstanceId, state: nodes.state });
  if (retired.length > 0) {
    ctx.log.info("nodes retired", {
      count: retired.length,
      after_s: ctx.config.nodeRetireAfterS,
      nodes: retired.map((n) => ({
        pool_id: n.poolId,
        provider_instance_id: n.providerInstanceId,
        state: n.state,
      })),
    });
  }
  return retired;
}
