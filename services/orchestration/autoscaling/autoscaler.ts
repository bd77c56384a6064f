// The orchestrator's side of autoscaling: at the start of each reconciler pass (so only the leader
// decides), it reads every autoscaled deployment, the load the gateways reported for it, and decides
// (decide.ts). A decision writes the deployment's wanted `replicas`, which the same pass then starts
// or stops through the provider, exactly as the owner's scale does; and it is recorded as a transition
// with its reason, so the status API and the dashboard say why.
import { and, eq, inArray, isNull, sum } from "drizzle-orm";
import type { ProviderRegistry } from "#adapters/providers/index.ts";
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

export function createAutoscaler(
  ctx: AppContext,
  load: LoadStore,
  providers: () => ProviderRegistry,
): Autoscaler {
  const log = ctx.log.child({ component: "autoscaler" });
  const windows = new Map<string, Window>();

  async function bounds(d: DeploymentRow, pool: PoolRow, ready: number) {
    const result: Bounds = {};
    if (pool.maxCostPerHour !== null && d.estimatedCostPerHour !== null && ready > 0) {
      const perReplica = d.estimatedCostPerHour / ready;
      const [spent] = await ctx.db
        .select({ total: sum(deployments.estimatedCostPerHour) })
        .from(deployments)
        .where(and(eq(deployments.poolId, pool.id), isNull(deployments.deletedAt)));
      const others = Number(spent?.total ?? 0) - d.estimatedCostPerHour;
      if (perReplica > 0) {
        const affordable = Math.floor((pool.maxCostPerHour - others) / perReplica + 1e-9);
        result.cost = {
          replicas: Math.max(0, affordable),
          why: `the pool's max_cost_per_hour ($${pool.maxCostPerHour}/h) pays for ${Math.max(0, affordable)} at $${round(perReplica)}/h each${others > 0 ? ` beside $${round(others)}/h of its other deployments` : ""}`,
        };
      }
    }
    const room = await poolRoom(ctx.db, pool.id, d.id);
    if (room) {
      const left = Math.max(0, room.size - room.taken);
      result.size = {
        replicas: left,
        why: `the pool's size (${room.size}) leaves room for ${left} beside ${room.taken} of its other deployments`,
      };
    }
    const provider = providers()[pool.provider];
    if (provider && d.gpuPerReplica > 0) {
      try {
        const offered = await provider.listResources(await providerAccess(ctx, d.orgId, pool.provider));
        const gpus = offered.gpus.reduce((n, g) => n + g.count, 0);
        if (offered.gpus.length > 0) {
          const room = Math.floor(gpus / d.gpuPerReplica);
          result.capacity = {
            replicas: room,
            why: `the ${pool.provider} provider has ${gpus} GPUs, room for ${room} at ${d.gpuPerReplica} each`,
          };
        }
      } catch (error) {
        log.warn("provider capacity unknown; scaling without that bound", { deployment_id: d.id, error });
      }
    }
    return result;
  }

  return {
    async pass() {
      const rows = await ctx.db
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
      for (const { config, deployment: d, pool } of rows) {
        const settings = withDefaults(storedConfig("autoscaling", config));
        const current = loads.get(d.id) ?? idle;
        let window = windows.get(d.id);
        if (!window) {
          window = {};
          windows.set(d.id, window);
        }
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
          bounds: wanted > d.replicas ? await bounds(d, pool, ready) : {},
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
