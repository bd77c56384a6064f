// The node inventory: heartbeats upsert a pool's nodes; a node silent for three intervals turns
// UNHEALTHY (and its replica stops being routed to, see the reconciler). Heartbeats are telemetry
// from machines, many a minute: they are not audited like user changes.
import { and, eq, lt } from "drizzle-orm";
import { type NodeState, nodeStates, nodes, type PoolRow, pools } from "../../db/schema/index.ts";
import { useNodeTokenCheck } from "../auth/authorize.ts";
import type { AppContext, RequestContext } from "../context.ts";
import { AppError, invalid } from "../errors.ts";
import { isUuid } from "./ids.ts";
import { poolOfNodeToken } from "./node-token.ts";
import { Problems } from "./validation.ts";
import { type NodeView, nodeView } from "./views.ts";

export interface HeartbeatInput {
  provider?: string | undefined;
  provider_instance_id: string;
  gpu_allocated?: number | undefined;
  vcpu_allocated?: number | undefined;
  ram_gb_allocated?: number | undefined;
  health_score?: number | undefined;
  state?: string | undefined;
  expose_url?: string | undefined;
  /** Only for callers with the internal key, which names no pool by itself. */
  pool_id?: string | undefined;
}

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
  if (!(nodeStates as readonly string[]).includes(state))
    problems.add("state", `must be one of ${nodeStates.join(", ")}`);
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
    state: state as NodeState,
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

/** Nodes OFFLINE for a day are forgotten, so restarts do not grow the inventory forever. */
export async function forgetOfflineNodes(ctx: AppContext): Promise<void> {
  const cutoff = new Date(ctx.clock().getTime() - 24 * 3600 * 1000);
  await ctx.db.delete(nodes).where(and(eq(nodes.state, "OFFLINE"), lt(nodes.lastHeartbeatAt, cutoff)));
}

// The "node" access of the HTTP guard and gRPC interceptor asks this whether a bearer is a pool's
// node token; installed as soon as the inventory service is loaded.
useNodeTokenCheck(async (ctx, token) => (await poolOfNodeToken(ctx, token)) !== undefined);
