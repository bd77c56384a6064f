// Compute pools: created Provisioning (the reconciler asks the provider and moves them to Active),
// listed by owner with their node counts, deleted once nothing on them runs.

import { and, asc, count, eq, inArray, isNotNull, isNull, notInArray, sql, sum } from "drizzle-orm";
import type { PoolState } from "#core/domain.ts";
import { AppError, notFound } from "#core/errors.ts";
import { uuidOr404 } from "#core/ids.ts";
import { isObjectLike } from "#core/json.ts";
import { isOneOf, Problems } from "#core/validation.ts";
import type { Executor } from "#db/client.ts";
import { deployments, nodes, type PoolRow, pools } from "#db/schema/index.ts";
import { mutate } from "../audit/mutate.ts";
import { actorOf, type RequestContext } from "../context.ts";
import { traced } from "../telemetry/tracing.ts";
import { nodeTokenFor, nodeTokenHash } from "./node-token.ts";
import { providerOrDefault } from "./providers.ts";
import type { WithOrchestration } from "./runtime.ts";
import { assertPoolRemovable, movePool } from "./state-machine.ts";
import { type NodeView, nodeView, type PoolFigures, type PoolView, poolView } from "./views.ts";

export interface CreatePoolInput {
  pool_name?: string | undefined;
  owner_type?: string | undefined;
  owner_id?: string | undefined;
  provider?: string | undefined;
  allowed_gpu_types?: string[] | undefined;
  max_cost_per_hour?: number | null | undefined;
  is_dedicated?: boolean | undefined;
  provider_pool_id?: string | undefined;
  scheduling_policy_json?: string | undefined;
  size?: number | null | undefined;
}

export const maxPoolSize = 1024;

export const ownerTypes = ["org", "user"] as const;
const poolNamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

type SchedulingPolicy = PoolRow["schedulingPolicy"];

function schedulingPolicyOf(raw: string | undefined, problems: Problems): SchedulingPolicy {
  if (raw === undefined || raw.trim() === "") return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (isObjectLike(parsed)) return parsed;
  } catch {}
  problems.add("scheduling_policy_json", "must be the JSON text of an object");
  return {};
}

async function createPoolNow(
  ctx: RequestContext & WithOrchestration,
  input: CreatePoolInput,
): Promise<PoolView & { node_token: string }> {
  const actor = actorOf(ctx);
  const problems = new Problems();
  const provider = await providerOrDefault(ctx, actor.orgId, input.provider);
  const name = input.pool_name?.trim() || `${provider.id}-${crypto.randomUUID().slice(0, 8)}`;
  if (!poolNamePattern.test(name)) {
    problems.add(
      "pool_name",
      "letters, digits, '.', '_' and '-', at most 63, starting with a letter or digit",
    );
  }
  const ownerType = input.owner_type || "org";
  if (!isOneOf(ownerTypes, ownerType)) {
    problems.add("owner_type", `must be one of ${ownerTypes.join(", ")}`);
  }
  const ownOwner = ownerType === "user" ? actor.userId : actor.orgId;
  const ownerId = input.owner_id || ownOwner;
  if (ownerId !== ownOwner) {
    problems.add(
      "owner_id",
      ownerType === "user" ? "must be your own user id" : "must be your active organization's id",
    );
  }
  if (input.max_cost_per_hour != null && !(input.max_cost_per_hour >= 0)) {
    problems.add("max_cost_per_hour", "must be zero or more");
  }
  const gpuTypes = (input.allowed_gpu_types ?? []).map((g) => g.trim()).filter(Boolean);
  if (gpuTypes.length > 0 && !provider.capabilities.gpus) {
    problems.add("allowed_gpu_types", `the ${provider.id} provider places no GPUs`);
  }
  const schedulingPolicy = schedulingPolicyOf(input.scheduling_policy_json, problems);
  if (input.size != null && !(Number.isInteger(input.size) && input.size >= 1 && input.size <= maxPoolSize)) {
    problems.add(
      "size",
      `must be an integer from 1 to ${maxPoolSize} (replicas at once), or absent for no limit`,
    );
  }
  problems.throwIfAny();

  const id = crypto.randomUUID();
  const token = nodeTokenFor(ctx, id);
  const view = await mutate(ctx, "pool.create", { type: "pool", id }, async (tx) => {
    const [taken] = await tx
      .select({ id: pools.id })
      .from(pools)
      .where(and(eq(pools.orgId, actor.orgId), eq(pools.name, name)))
      .limit(1);
    if (taken)
      throw new AppError("already_exists", `a pool named ${name} already exists`, {
        fields: [{ field: "pool_name", message: "is taken" }],
      });
    const [row] = await tx
      .insert(pools)
      .values({
        id,
        orgId: actor.orgId,
        name,
        ownerType,
        ownerId,
        provider: provider.id,
        allowedGpuTypes: gpuTypes,
        maxCostPerHour: input.max_cost_per_hour ?? null,
        isDedicated: input.is_dedicated ?? false,
        providerPoolId: input.provider_pool_id || null,
        schedulingPolicy,
        size: input.size ?? null,
        nodeTokenHash: nodeTokenHash(token),
      })
      .returning();
    return { result: poolView(row as PoolRow), details: { provider: provider.id, name } };
  });
  ctx.orchestration.kick();
  return { ...view, node_token: token };
}

/** Nodes, ready nodes and the summed estimated cost of the deployments, per pool. */
async function nodeCounts(db: Executor, poolIds: string[]): Promise<Map<string, PoolFigures>> {
  const counts = new Map<string, PoolFigures>();
  if (poolIds.length === 0) return counts;
  const costs = await db
    .select({ poolId: deployments.poolId, cost: sum(deployments.estimatedCostPerHour).mapWith(Number) })
    .from(deployments)
    .where(
      and(
        inArray(deployments.poolId, poolIds),
        isNull(deployments.deletedAt),
        isNotNull(deployments.estimatedCostPerHour),
      ),
    )
    .groupBy(deployments.poolId);
  for (const c of costs) {
    counts.set(c.poolId, { nodes: 0, ready: 0, costPerHour: Math.round(c.cost * 10_000) / 10_000 });
  }
  const rows = await db
    .select({ poolId: nodes.poolId, state: nodes.state, n: count() })
    .from(nodes)
    .where(inArray(nodes.poolId, poolIds))
    .groupBy(nodes.poolId, nodes.state);
  for (const r of rows) {
    const c = counts.get(r.poolId) ?? { nodes: 0, ready: 0, costPerHour: null };
    c.nodes += Number(r.n);
    if (r.state === "READY") c.ready += Number(r.n);
    counts.set(r.poolId, c);
  }
  return counts;
}

/** The pools of an owner (an organization id, or a user id for user-owned pools) in the caller's organization. */
export async function listPools(ctx: RequestContext, ownerId: string): Promise<{ pools: PoolView[] }> {
  const rows = await ctx.db
    .select()
    .from(pools)
    .where(and(eq(pools.orgId, actorOf(ctx).orgId), eq(pools.ownerId, ownerId)))
    .orderBy(asc(pools.createdAt));
  const counts = await nodeCounts(
    ctx.db,
    rows.map((r) => r.id),
  );
  return { pools: rows.map((r) => poolView(r, counts.get(r.id))) };
}

export async function poolOfOrg(db: Executor, orgId: string, poolId: string): Promise<PoolRow> {
  const id = uuidOr404(poolId, "pool");
  const [pool] = await db
    .select()
    .from(pools)
    .where(and(eq(pools.id, id), eq(pools.orgId, orgId)))
    .limit(1);
  if (!pool) throw notFound("pool");
  return pool;
}

export async function getPool(ctx: RequestContext, poolId: string): Promise<PoolView> {
  const pool = await poolOfOrg(ctx.db, actorOf(ctx).orgId, poolId);
  return poolView(pool, (await nodeCounts(ctx.db, [pool.id])).get(pool.id));
}

/** Starts deleting a pool (Deleting; the reconciler removes it). 409 while deployments on it are not stopped. */
async function deletePoolNow(ctx: RequestContext & WithOrchestration, poolId: string): Promise<PoolView> {
  const orgId = actorOf(ctx).orgId;
  const view = await mutate(ctx, "pool.delete", { type: "pool", id: poolId }, async (tx) => {
    const pool = await poolOfOrg(tx, orgId, poolId);
    const live = await tx
      .select({ name: deployments.name })
      .from(deployments)
      .where(
        and(
          eq(deployments.poolId, pool.id),
          isNull(deployments.deletedAt),
          notInArray(deployments.status, ["STOPPED", "FAILED"]),
        ),
      );
    assertPoolRemovable(
      pool,
      live.map((d) => d.name),
    );
    const moved = await movePool(tx, pool, "Deleting", null, ctx.clock());
    return { result: poolView(moved, (await nodeCounts(tx, [pool.id])).get(pool.id)) };
  });
  ctx.orchestration.kick();
  return view;
}

export async function poolInventory(
  ctx: RequestContext,
  poolId: string,
): Promise<{ pool_id: string; nodes: NodeView[] }> {
  const pool = await poolOfOrg(ctx.db, actorOf(ctx).orgId, poolId);
  const rows = await ctx.db
    .select()
    .from(nodes)
    .where(eq(nodes.poolId, pool.id))
    .orderBy(asc(nodes.createdAt), sql`${nodes.providerInstanceId}`);
  return { pool_id: pool.id, nodes: rows.map(nodeView) };
}

/** Pools that can take a deployment now or soon: not Deleting or Failed. */
export function poolAcceptsDeployments(state: PoolState): boolean {
  return state !== "Deleting" && state !== "Failed";
}

export function assertPoolAcceptsDeployments(pool: Pick<PoolRow, "name" | "state">): void {
  if (!poolAcceptsDeployments(pool.state)) {
    throw new AppError("failed_precondition", `the pool ${pool.name} is ${pool.state}`, {
      state: pool.state,
    });
  }
}

// Pool changes are spans when tracing is on; provisioning itself is traced by the reconciler.
export const createPool = traced("pool create", createPoolNow, (_ctx, input) => ({
  "llm.pool.provider": input.provider ?? "",
}));
export const deletePool = traced("pool delete", deletePoolNow, (_ctx, poolId) => ({ "llm.pool.id": poolId }));
