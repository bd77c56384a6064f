// One pass over the pools in motion: a Provisioning pool is asked of its provider until it is Active
// (or Failed); a Deleting one, once nothing of it runs, is given back and forgotten with the stopped,
// failed and deleted deployments it held (their replicas, history and logs go too).

import { and, eq, inArray } from "drizzle-orm";
import type { PoolSpec } from "#adapters/providers/provider.ts";
import { deployments, type PoolRow, pools, replicas } from "#db/schema/index.ts";
import type { AppContext, Logger } from "../context.ts";
import { providerAccess } from "../provider-configs/access.ts";
import { inSpan, type Span } from "../telemetry/tracing.ts";
import { isRunningReplica, shouldRun } from "./deployment-pass.ts";
import type { WithOrchestration } from "./runtime.ts";
import { movePool } from "./state-machine.ts";

/** Returns whether a pool is in motion: look again sooner. */
export async function reconcilePools(
  ctx: AppContext & WithOrchestration,
  log: Logger,
  passSpan: Span | undefined,
): Promise<boolean> {
  const rows = await ctx.db
    .select()
    .from(pools)
    .where(inArray(pools.state, ["Provisioning", "Deleting"]));
  for (const pool of rows) {
    try {
      await inSpan(
        ctx.tracer,
        pool.state === "Provisioning" ? "provision pool" : "release pool",
        { "llm.pool.id": pool.id, "llm.pool.provider": pool.provider },
        () => (pool.state === "Provisioning" ? provisionPool(ctx, pool) : releasePool(ctx, log, pool)),
        { parent: passSpan },
      );
    } catch (error) {
      log.warn("pool pass failed; retried next pass", { pool_id: pool.id, error });
    }
  }
  return rows.length > 0;
}

async function poolSpecOf(ctx: AppContext, pool: PoolRow): Promise<PoolSpec> {
  return {
    poolId: pool.id,
    orgId: pool.orgId,
    name: pool.name,
    provider: pool.provider,
    allowedGpuTypes: pool.allowedGpuTypes,
    maxCostPerHour: pool.maxCostPerHour,
    isDedicated: pool.isDedicated,
    providerPoolId: pool.providerPoolId,
    schedulingPolicy: pool.schedulingPolicy,
    access: await providerAccess(ctx, pool.orgId, pool.provider),
  };
}

async function provisionPool(ctx: AppContext & WithOrchestration, pool: PoolRow): Promise<void> {
  const provider = ctx.orchestration.providers[pool.provider];
  const spec = await poolSpecOf(ctx, pool);
  if (!provider) {
    await movePool(ctx.db, pool, "Failed", `the ${pool.provider} provider is not available`, ctx.clock());
    return;
  }
  const result = await provider.provisionPool(spec);
  if (result.state === "Active") {
    await ctx.db.transaction(async (tx) => {
      const moved = await movePool(tx, pool, "Active", null, ctx.clock());
      if (result.providerPoolId && !moved.providerPoolId) {
        await tx.update(pools).set({ providerPoolId: result.providerPoolId }).where(eq(pools.id, pool.id));
      }
    });
  } else if (result.state === "Failed") {
    await movePool(ctx.db, pool, "Failed", result.reason, ctx.clock());
  }
}

async function releasePool(ctx: AppContext & WithOrchestration, log: Logger, pool: PoolRow): Promise<void> {
  const provider = ctx.orchestration.providers[pool.provider];
  const spec = await poolSpecOf(ctx, pool);
  const held = await ctx.db.select().from(deployments).where(eq(deployments.poolId, pool.id));
  if (held.some((d) => shouldRun(d) || d.status === "STOPPING")) return;
  const heldIds = held.map((d) => d.id);
  if (heldIds.length > 0) {
    const active = await ctx.db.select().from(replicas).where(inArray(replicas.deploymentId, heldIds));
    if (active.some(isRunningReplica)) return;
  }
  await provider?.deprovisionPool(spec);
  await ctx.db.transaction(async (tx) => {
    if (heldIds.length > 0) await tx.delete(deployments).where(inArray(deployments.id, heldIds));
    await tx.delete(pools).where(and(eq(pools.id, pool.id), eq(pools.state, "Deleting")));
  });
  log.info("pool deleted", { pool_id: pool.id });
}
