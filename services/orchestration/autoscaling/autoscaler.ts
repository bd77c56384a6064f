// The orchestrator's side of autoscaling: at the start of each reconciler pass (so only the leader
// decides), it reads every autoscaled deployment, the load the gateways reported for it, and decides
// (decide.ts). A decision writes the deployment's wanted `replicas`, which the same pass then starts
// or stops through the provider, exactly as the owner's scale does; and it is recorded as a transition
// with its reason, so the status API and the dashboard say why.
import { and, eq, inArray, isNull, sum } from "drizzle-orm";
import type { ProviderRegistry } from "#adapters/providers/index.ts";
import type { Logger } from "#core/logger.ts";
import { storedConfig } from "#core/policies.ts";
import { idle, type LoadStore } from "#core/ports/load-store.ts";
import {
  type DeploymentRow,
  deployments,
  type PoolRow,
  policies,
  pools,
  replicas,
} from "#db/schema/index.ts";
import type { AppContext } from "../../context.ts";
import { providerAccess } from "../../provider-configs/access.ts";
import { poolRoom } from "../pool-size.ts";
import { recordScaleDecision } from "../state-machine.ts";
import { type Bounds, decide, needOf, type Window } from "./decide.ts";
import { withDefaults } from "./defaults.ts";

export interface Autoscaler {
  /** One look at every autoscaled deployment; true when a wanted replica count changed. */
  pass(): Promise<boolean>;
}

type Row = { deployment: DeploymentRow; pool: PoolRow };

/** What the pool's max_cost_per_hour pays for, from the deployment's cost per ready replica. */
async function costBound(
  ctx: AppContext,
  { deployment: d, pool }: Row,
  ready: number,
): Promise<Bounds["cost"]> {
  if (pool.maxCostPerHour === null || d.estimatedCostPerHour === null || ready <= 0) return undefined;
  const perReplica = d.estimatedCostPerHour / ready;
  const [spent] = await ctx.db
    .select({ total: sum(deployments.estimatedCostPerHour) })
    .from(deployments)
    .where(and(eq(deployments.poolId, pool.id), isNull(deployments.deletedAt)));
  const others = Number(spent?.total ?? 0) - d.estimatedCostPerHour;
  if (perReplica <= 0) return undefined;
  const affordable = Math.floor((pool.maxCostPerHour - others) / perReplica + 1e-9);
  return {
    replicas: Math.max(0, affordable),
    why: `the pool's max_cost_per_hour ($${pool.maxCostPerHour}/h) pays for ${Math.max(0, affordable)} at $${round(perReplica)}/h each${others > 0 ? ` beside $${round(others)}/h of its other deployments` : ""}`,
  };
}

/** What the pool's size leaves room for beside its other deployments. */
async function sizeBound(ctx: AppContext, { deployment: d, pool }: Row): Promise<Bounds["size"]> {
  const room = await poolRoom(ctx.db, pool.id, d.id);
  if (!room) return undefined;
  const left = Math.max(0, room.size - room.taken);
  return {
    replicas: left,
    why: `the pool's size (${room.size}) leaves room for ${left} beside ${room.taken} of its other deployments`,
  };
}

/** What the provider's GPUs hold; unknown (no bound) when it cannot say. */
async function capacityBound(
  ctx: AppContext,
  providers: () => ProviderRegistry,
  log: Logger,
  { deployment: d, pool }: Row,
): Promise<Bounds["capacity"]> {
  const provider = providers()[pool.provider];
  if (!provider || d.gpuPerReplica <= 0) return undefined;
  try {
    const offered = await provider.listResources(await providerAccess(ctx, d.orgId, pool.provider));
    const gpus = offered.gpus.reduce((n, g) => n + g.count, 0);
    if (offered.gpus.length === 0) return undefined;
    const room = Math.floor(gpus / d.gpuPerReplica);
    return {
      replicas: room,
      why: `the ${pool.provider} provider has ${gpus} GPUs, room for ${room} at ${d.gpuPerReplica} each`,
    };
  } catch (error) {
    log.warn("provider capacity unknown; scaling without that bound", { deployment_id: d.id, error });
    return undefined;
  }
}

/** Every autoscaled deployment that runs or is starting, with its policy and its (active) pool. */
function autoscaledRows(ctx: AppContext) {
  return ctx.db
    .select({ config: policies.config, deployment: deployments, pool: pools })
    .from(policies)
    .innerJoin(deployments, eq(deployments.id, policies.deploymentId))
    .innerJoin(pools, eq(pools.id, deployments.poolId))
    .where(
      and(
        eq(policies.policyType, "autoscaling"),
        isNull(deployments.deletedAt),
        eq(deployments.desiredState, "running"),
        inArray(deployments.status, ["DEPLOYING", "RUNNING"]),
        eq(pools.state, "Active"),
      ),
    );
}

export function createAutoscaler(
  ctx: AppContext,
  load: LoadStore,
  providers: () => ProviderRegistry,
): Autoscaler {
  const log = ctx.log.child({ component: "autoscaler" });
  const windows = new Map<string, Window>();

  async function bounds(row: Row, ready: number): Promise<Bounds> {
    const result: Bounds = {};
    const cost = await costBound(ctx, row, ready);
    if (cost) result.cost = cost;
    const size = await sizeBound(ctx, row);
    if (size) result.size = size;
    const capacity = await capacityBound(ctx, providers, log, row);
    if (capacity) result.capacity = capacity;
    return result;
  }

  function windowOf(id: string): Window {
    let window = windows.get(id);
    if (!window) {
      window = {};
      windows.set(id, window);
    }
    return window;
  }

  return {
    async pass() {
      const rows = await autoscaledRows(ctx);
      const ids = rows.map((r) => r.deployment.id);
      for (const id of windows.keys()) if (!ids.includes(id)) windows.delete(id);
      if (rows.length === 0) return false;
      const [loads, readyRows] = await Promise.all([
        load.sum(ids),
        ctx.db
          .select({ deploymentId: replicas.deploymentId })
          .from(replicas)
          .where(and(inArray(replicas.deploymentId, ids), eq(replicas.state, "READY"))),
      ]);
      let changed = false;
      const now = ctx.clock();
      for (const row of rows) {
        const { config, deployment: d } = row;
        const settings = withDefaults(storedConfig("autoscaling", config));
        const current = loads.get(d.id) ?? idle;
        const window = windowOf(d.id);
        const ready = readyRows.filter((r) => r.deploymentId === d.id).length;
        const wanted = Math.min(
          settings.max_replicas,
          Math.max(settings.min_replicas, needOf(settings, current)),
        );
        const decision = decide({
          policy: settings,
          current: d.replicas,
          load: current,
          nowMs: now.getTime(),
          window,
          bounds: wanted > d.replicas ? await bounds(row, ready) : {},
        });
        if (decision.kind === "none") continue;
        const to = decision.kind === "scale" ? decision.to : d.replicas;
        const written = await recordScaleDecision(ctx.db, d, to, decision.reason, now);
        if (written && to !== d.replicas) {
          changed = true;
          log.info("autoscaled", { deployment_id: d.id, from: d.replicas, to, reason: decision.reason });
        }
      }
      return changed;
    },
  };
}

const round = (dollars: number) => Math.round(dollars * 10_000) / 10_000;
