// One reconciler pass over one deployment: from its row, its replica rows and what the provider
// observes, bring the replicas toward what is wanted, and move the deployment when that is reached
// (DEPLOYING -> RUNNING, STOPPING -> STOPPED) or cannot be (-> FAILED). Idempotent: running it twice
// changes nothing the first run did not.
import { and, eq } from "drizzle-orm";
import type {
  ComputeProvider,
  ProviderAccess,
  ReplicaHandle,
  ReplicaObservation,
  ReplicaSpec,
} from "#adapters/providers/provider.ts";
import type { NodeState, ReplicaState } from "#core/domain.ts";
import { AppError } from "#core/errors.ts";
import type { DeploymentRow, PoolRow, ReplicaRow } from "#db/schema/index.ts";
import { deployments, replicas } from "#db/schema/index.ts";
import type { AppContext } from "../context.ts";
import { providerAccess } from "../provider-configs/access.ts";
import { markInstanceOffline } from "./inventory.ts";
import { resolveModelFile } from "./model-source.ts";
import { nodeTokenFor } from "./node-token.ts";
import type { OrchestrationRuntime, WithOrchestration } from "./runtime.ts";
import { moveDeployment } from "./state-machine.ts";

export interface PassSettings {
  heartbeatUrl: string | undefined;
  restartBaseMs: number;
  restartMaxMs: number;
  startTimeoutMs: number;
  /** Exits before ever being ready that fail a DEPLOYING deployment. */
  maxStartAttempts: number;
  /**
   * How long a replica no longer wanted stays up out of rotation before it is stopped: gateways keep a
   * deployment's endpoints up to a second, and requests already sent to it finish meanwhile.
   */
  drainMs: number;
}

/** Replicas whose output the log pump reads, by replica id. */
export interface Tracked {
  deploymentId: string;
  index: number;
  provider: ComputeProvider;
  handle: ReplicaHandle;
  cursor: string | undefined;
}

export interface PassDeps {
  ctx: AppContext & WithOrchestration;
  runtime: OrchestrationRuntime;
  settings: PassSettings;
  tracked: Map<string, Tracked>;
  /** Reads what is left of a replica's output before it is forgotten. */
  drain(replicaId: string): Promise<void>;
}

const runningStates: readonly ReplicaState[] = ["STARTING", "READY", "UNHEALTHY", "DRAINING"];
export const isRunningReplica = (r: ReplicaRow) =>
  runningStates.includes(r.state) && r.providerInstanceId !== null;

export const shouldRun = (d: DeploymentRow) =>
  d.deletedAt === null &&
  d.desiredState === "running" &&
  (d.status === "DEPLOYING" || d.status === "RUNNING");

export function backoffMs(settings: PassSettings, restarts: number): number {
  return Math.min(settings.restartMaxMs, settings.restartBaseMs * 2 ** Math.max(0, restarts - 1));
}

/** What a replica's spec needs beyond its rows, read once per deployment pass. */
interface ReplicaInputs {
  modelPath: string | undefined;
  access: ProviderAccess;
  /** Filled with the price per hour of each ready replica whose provider gives one. */
  costs: number[];
  /** The state of every node of the pass's pools, by `poolId/instance` (a silent node: UNHEALTHY). */
  nodeStates: Map<string, NodeState>;
}

const roundCents = (dollars: number) => Math.round(dollars * 10_000) / 10_000;

const handleOf = (row: ReplicaRow): ReplicaHandle => ({
  replicaId: row.id,
  providerInstanceId: row.providerInstanceId ?? "",
  endpoint: row.endpoint,
});

type ReplicaOutcome = ReplicaState | "failed";

/**
 * One reconciler pass over deployments: what each of its steps needs (the context, the runtime, the
 * settings, the replicas the log pump reads), built once per pass by reconciler.ts.
 */
export class DeploymentPass {
  readonly ctx: AppContext;
  readonly runtime: OrchestrationRuntime;
  readonly settings: PassSettings;
  readonly tracked: Map<string, Tracked>;
  /** Reads what is left of a replica's output before it is forgotten. */
  readonly drain: (replicaId: string) => Promise<void>;

  constructor(deps: PassDeps) {
    this.ctx = deps.ctx;
    this.runtime = deps.runtime;
    this.settings = deps.settings;
    this.tracked = deps.tracked;
    this.drain = deps.drain;
  }

  async reconcileDeployment(
    d: DeploymentRow,
    pool: PoolRow | undefined,
    rows: ReplicaRow[],
    nodeStates: Map<string, NodeState>,
  ): Promise<void> {
    const provider = pool ? this.runtime.providers[pool.provider] : undefined;
    if (!shouldRun(d) || !pool || !provider) {
      await this.stopAll(d, pool, provider, rows);
      if (shouldRun(d))
        await this.fail(d, pool ? `the ${pool.provider} provider is not available` : "its pool is gone");
      return;
    }
    if (pool.state === "Failed")
      return void (await this.fail(d, `pool ${pool.name} failed: ${pool.failureReason ?? "unknown"}`));
    if (pool.state !== "Active") return; // Provisioning: wait for it.

    let modelPath: string | undefined;
    if (provider.capabilities.needsModelFile) {
      const model = await resolveModelFile(this.ctx.db, d.orgId, d.inferenceModel ?? "", this.runtime.models);
      if (model.state === "pending") return;
      if (model.state === "failed") {
        await this.stopAll(d, pool, provider, rows);
        return void (await this.fail(d, model.reason));
      }
      modelPath = model.path;
    }

    const access = await providerAccess(this.ctx, d.orgId, pool.provider);
    const byIndex = new Map(rows.map((r) => [r.index, r]));
    for (const extra of rows.filter((r) => r.index >= d.replicas)) {
      if (await this.draining(d, extra)) continue;
      await this.stopReplica(d, pool, provider, extra);
      await this.ctx.db.delete(replicas).where(eq(replicas.id, extra.id));
    }
    let ready = 0;
    const costs: number[] = [];
    for (let index = 0; index < d.replicas; index++) {
      let row = byIndex.get(index);
      if (!row) {
        [row] = await this.ctx.db
          .insert(replicas)
          .values({ deploymentId: d.id, index, state: "PENDING" })
          .onConflictDoNothing()
          .returning();
        if (!row) continue; // Someone else inserted it; the next pass sees it.
      }
      const outcome = await this.reconcileReplica(d, pool, provider, row, {
        modelPath,
        access,
        costs,
        nodeStates,
      });
      if (outcome === "failed") return;
      if (outcome === "READY") ready++;
    }
    await this.recordCost(d, costs.length > 0 ? roundCents(costs.reduce((a, b) => a + b, 0)) : null);
    if (d.status === "DEPLOYING" && ready === d.replicas) {
      await this.move(
        d,
        "RUNNING",
        d.replicas === 1 ? "the replica is ready" : `all ${d.replicas} replicas are ready`,
      );
    }
  }

  /** A serving replica no longer wanted leaves the rotation first; true while it is still draining. */
  private async draining(d: DeploymentRow, row: ReplicaRow): Promise<boolean> {
    if (this.settings.drainMs <= 0 || !row.providerInstanceId) return false;
    if (row.state === "READY" || row.state === "UNHEALTHY") {
      await this.update(row, { state: "DRAINING" });
      this.note(
        d,
        row.index,
        `replica ${row.index} draining: no new requests, stopped in ${this.settings.drainMs / 1000} s`,
      );
      return true;
    }
    return (
      row.state === "DRAINING" && this.ctx.clock().getTime() - row.updatedAt.getTime() < this.settings.drainMs
    );
  }

  private specOf(d: DeploymentRow, pool: PoolRow, row: ReplicaRow, model: ReplicaInputs): ReplicaSpec {
    const url = this.settings.heartbeatUrl;
    return {
      replicaId: row.id,
      deploymentId: d.id,
      deploymentName: d.name,
      index: row.index,
      engine: d.engine,
      modelPath: model.modelPath,
      modelSource: d.inferenceModel ?? "",
      configuration: d.configuration,
      gpuPerReplica: d.gpuPerReplica,
      placement: {
        poolId: pool.id,
        allowedGpuTypes: pool.allowedGpuTypes,
        maxCostPerHour: pool.maxCostPerHour,
        isDedicated: pool.isDedicated,
        schedulingPolicy: pool.schedulingPolicy,
      },
      heartbeat: url
        ? { url, nodeToken: nodeTokenFor(this.ctx, pool.id), intervalMs: this.ctx.config.heartbeatIntervalMs }
        : undefined,
      access: model.access,
    };
  }

  /** The deployment's estimated cost per hour: the sum over its priced ready replicas, written when it changes. */
  private async recordCost(d: DeploymentRow, cost: number | null): Promise<void> {
    if (d.estimatedCostPerHour === cost) return;
    await this.ctx.db.update(deployments).set({ estimatedCostPerHour: cost }).where(eq(deployments.id, d.id));
  }

  private async reconcileReplica(
    d: DeploymentRow,
    pool: PoolRow,
    provider: ComputeProvider,
    row: ReplicaRow,
    inputs: ReplicaInputs,
  ): Promise<ReplicaOutcome> {
    const now = this.ctx.clock();
    const spec = this.specOf(d, pool, row, inputs);
    switch (row.state) {
      case "PENDING":
      case "STOPPED":
      case "FAILED":
        return this.start(d, provider, row, spec, 0);
      case "RESTARTING": {
        const due = row.updatedAt.getTime() + backoffMs(this.settings, row.restarts);
        return now.getTime() >= due ? this.start(d, provider, row, spec, row.restarts) : "RESTARTING";
      }
      default:
        break;
    }
    if (!row.providerInstanceId) return this.start(d, provider, row, spec, row.restarts);
    this.track(d, provider, row, "end");
    let seen: ReplicaObservation = await provider.inspectReplica(handleOf(row), spec);
    if (
      seen.phase === "starting" &&
      row.startedAt &&
      now.getTime() - row.startedAt.getTime() > this.settings.startTimeoutMs
    ) {
      await provider.stopReplica(handleOf(row));
      const waitingFor = seen.waitingFor ? ` (${seen.waitingFor})` : "";
      seen = {
        phase: "exited",
        reason: `not ready within ${Math.round(this.settings.startTimeoutMs / 1000)} s${waitingFor}`,
      };
    }
    switch (seen.phase) {
      case "starting":
        return "STARTING";
      case "ready": {
        if (typeof seen.costPerHour === "number") inputs.costs.push(seen.costPerHour);
        const state: ReplicaState =
          inputs.nodeStates.get(`${pool.id}/${row.providerInstanceId}`) === "UNHEALTHY"
            ? "UNHEALTHY"
            : "READY";
        if (state !== row.state || seen.endpoint !== row.endpoint) {
          await this.update(row, {
            state,
            endpoint: seen.endpoint,
            lastError: state === "UNHEALTHY" ? "no heartbeat for three intervals" : null,
          });
          if (state === "READY" && row.state === "STARTING")
            this.note(d, row.index, `replica ${row.index} ready at ${seen.endpoint}`);
          if (state !== row.state && row.state !== "STARTING")
            this.note(d, row.index, `replica ${row.index} is ${state}`);
        }
        return state;
      }
      case "failed": {
        await this.forget(pool, row);
        await this.update(row, { state: "FAILED", endpoint: null, lastError: seen.reason });
        this.note(d, row.index, `replica ${row.index} cannot start: ${seen.reason}`);
        await this.fail(d, `replica ${row.index} cannot start: ${seen.reason}`);
        return "failed";
      }
      default: {
        const reason = seen.phase === "gone" ? "the worker is gone" : seen.reason;
        await this.forget(pool, row);
        const restarts = row.restarts + 1;
        if (d.status === "DEPLOYING" && restarts >= this.settings.maxStartAttempts) {
          await this.update(row, { state: "FAILED", endpoint: null, lastError: reason, restarts });
          await this.fail(d, `replica ${row.index} exited ${restarts} times before it was ready: ${reason}`);
          return "failed";
        }
        await this.update(row, { state: "RESTARTING", endpoint: null, lastError: reason, restarts });
        const delay = backoffMs(this.settings, restarts);
        this.note(
          d,
          row.index,
          `replica ${row.index}: ${reason}; restarting in ${(delay / 1000).toFixed(1)} s (restart ${restarts})`,
        );
        return "RESTARTING";
      }
    }
  }

  private async start(
    d: DeploymentRow,
    provider: ComputeProvider,
    row: ReplicaRow,
    spec: ReplicaSpec,
    restarts: number,
  ): Promise<ReplicaOutcome> {
    let handle: ReplicaHandle;
    try {
      handle = await provider.startReplica(spec);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      await this.update(row, { state: "FAILED", endpoint: null, lastError: reason });
      await this.fail(d, `replica ${row.index} could not be started: ${reason}`);
      return "failed";
    }
    await this.update(row, {
      state: "STARTING",
      providerInstanceId: handle.providerInstanceId,
      endpoint: handle.endpoint,
      startedAt: this.ctx.clock(),
      lastError: null,
      restarts,
    });
    this.track(d, provider, { ...row, providerInstanceId: handle.providerInstanceId }, undefined);
    this.note(d, row.index, `replica ${row.index} started (${handle.providerInstanceId})`);
    return "STARTING";
  }

  /** Stops every replica of a deployment that should not run, then STOPPING -> STOPPED. */
  private async stopAll(
    d: DeploymentRow,
    pool: PoolRow | undefined,
    provider: ComputeProvider | undefined,
    rows: ReplicaRow[],
  ): Promise<void> {
    for (const row of rows) {
      if (row.state === "STOPPED" || row.state === "FAILED") {
        if (d.deletedAt) await this.ctx.db.delete(replicas).where(eq(replicas.id, row.id));
        continue;
      }
      if (provider && pool) await this.stopReplica(d, pool, provider, row);
      if (d.deletedAt) await this.ctx.db.delete(replicas).where(eq(replicas.id, row.id));
      else await this.update(row, { state: "STOPPED", endpoint: null });
    }
    // Nothing runs, so nothing costs.
    if (!d.deletedAt) await this.recordCost(d, null);
    if (d.status === "STOPPING" && !d.deletedAt) await this.move(d, "STOPPED", "all replicas stopped");
  }

  private async stopReplica(d: DeploymentRow, pool: PoolRow, provider: ComputeProvider, row: ReplicaRow) {
    if (!row.providerInstanceId) return;
    await provider.stopReplica(handleOf(row));
    await this.forget(pool, row);
    this.note(d, row.index, `replica ${row.index} stopped`);
  }

  /** The replica's process is over: read the rest of its output, and its node goes OFFLINE. */
  private async forget(pool: PoolRow, row: ReplicaRow) {
    await this.drain(row.id);
    this.tracked.delete(row.id);
    if (row.providerInstanceId) await markInstanceOffline(this.ctx, pool.id, row.providerInstanceId);
  }

  private track(d: DeploymentRow, provider: ComputeProvider, row: ReplicaRow, cursor: string | undefined) {
    const known = this.tracked.get(row.id);
    if (known && known.handle.providerInstanceId === row.providerInstanceId) return;
    this.tracked.set(row.id, {
      deploymentId: d.id,
      index: row.index,
      provider,
      handle: handleOf(row),
      cursor,
    });
  }

  private async update(row: ReplicaRow, patch: Partial<Omit<ReplicaRow, "id" | "deploymentId" | "index">>) {
    const changed = (Object.keys(patch) as (keyof typeof patch)[]).some((k) => {
      const a = patch[k];
      const b = row[k];
      return a instanceof Date && b instanceof Date ? a.getTime() !== b.getTime() : a !== b;
    });
    if (!changed) return;
    await this.ctx.db
      .update(replicas)
      .set({ ...patch, updatedAt: this.ctx.clock() })
      .where(and(eq(replicas.id, row.id), eq(replicas.deploymentId, row.deploymentId)));
  }

  private note(d: DeploymentRow, replica: number, line: string) {
    this.runtime.logs.push(d.id, replica, "system", [line]);
  }

  /** The state machine decides; a deployment someone else moved meanwhile is left for the next pass. */
  private async move(d: DeploymentRow, to: DeploymentRow["status"], reason: string) {
    try {
      await this.ctx.db.transaction((tx) => moveDeployment(tx, d, to, reason, this.ctx.clock()));
    } catch (error) {
      if (!(error instanceof AppError && error.code === "failed_precondition")) throw error;
    }
  }

  private async fail(d: DeploymentRow, reason: string) {
    if (d.status === "FAILED") return;
    this.note(d, 0, `deployment failed: ${reason}`);
    await this.move(d, "FAILED", reason);
  }
}
