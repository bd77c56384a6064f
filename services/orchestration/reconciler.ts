// The reconciler: every second (and at once after each API write) it reads what is wanted from the
// database and drives the providers toward it: pools provisioned and removed, replicas started,
// restarted with backoff and stopped, deployments moved through the state machine, silent nodes
// marked UNHEALTHY, and workers nobody wants any more (orphans) stopped. It keeps nothing the
// database cannot rebuild, so a restarted orchestration process picks up where the last one was:
// it finds running workers again through the provider (adoption) and stops the orphans.
// A log pump beside it copies replica output into the log hub (live stream and deployment_logs).

import { and, eq, inArray, isNull, or } from "drizzle-orm";
import {
  type DeploymentRow,
  deployments,
  type NodeState,
  nodes,
  type PoolRow,
  pools,
  replicas,
} from "../../db/schema/index.ts";
import type { ProviderId } from "../../db/schema/pools.ts";
import { createAutoscaler } from "../autoscaling/autoscaler.ts";
import { type LoadStore, processLoadStore } from "../autoscaling/load.ts";
import type { AppContext } from "../context.ts";
import { providerAccess } from "../provider-configs/access.ts";
import { inSpan, type Span } from "../telemetry/tracing.ts";
import {
  isRunningReplica,
  type PassSettings,
  reconcileDeployment,
  shouldRun,
  type Tracked,
} from "./deployment-pass.ts";
import { markSilentNodes, retireStaleNodes } from "./inventory.ts";
import { leadershipOf } from "./leadership.ts";
import { type OrchestrationRuntime, orchestrationOf } from "./runtime.ts";
import { movePool } from "./state-machine.ts";

export interface ReconcilerOptions {
  intervalMs?: number;
  logPumpMs?: number;
  /** Where workers send heartbeats; unset: they send none. */
  heartbeatUrl?: string | undefined;
  restartBaseMs?: number;
  restartMaxMs?: number;
  startTimeoutMs?: number;
  maxStartAttempts?: number;
  orphanScanMs?: number;
  /** How long a replica scaled away stays up out of rotation before it stops (default 5 s). */
  drainMs?: number;
  /** Where the inference gateways report load, for autoscaling (default: this process's memory). */
  load?: LoadStore | undefined;
}

export interface Reconciler {
  /** Run a pass soon (coalesced with one already running). */
  kick(): void;
  /** Run a full pass now and wait for it (tests, and shutdown). */
  pass(): Promise<void>;
  /** Ends the loop. Workers keep running (the next start adopts them) unless `stopWorkers`. */
  stop(options?: { stopWorkers?: boolean }): Promise<void>;
  setHeartbeatUrl(url: string | undefined): void;
}

export function startReconciler(ctx: AppContext, options: ReconcilerOptions = {}): Reconciler {
  const log = ctx.log.child({ component: "reconciler" });
  const runtime = orchestrationOf(ctx);
  const intervalMs = options.intervalMs ?? 1000;
  const settings: PassSettings = {
    heartbeatUrl: options.heartbeatUrl,
    restartBaseMs: options.restartBaseMs ?? 1000,
    restartMaxMs: options.restartMaxMs ?? 60_000,
    startTimeoutMs: options.startTimeoutMs ?? 10 * 60_000,
    maxStartAttempts: options.maxStartAttempts ?? 5,
    drainMs: options.drainMs ?? 5000,
  };
  const orphanScanMs = options.orphanScanMs ?? 5000;
  const settlingIntervalMs = 100;
  const tracked = new Map<string, Tracked>();
  const leadership = leadershipOf(ctx.db);
  let lastOrphanScan = 0;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;
  let again = false;

  const pump = createLogPump(ctx, runtime, tracked, options.logPumpMs ?? 250);
  const deps = { ctx, runtime, settings, tracked, drain: pump.drain };
  const autoscaler = createAutoscaler(ctx, options.load ?? processLoadStore, () => runtime.providers);

  /** Something is on its way (a replica starting, a deployment stopping): look again sooner. */
  let settling = false;

  /** The pass under way, parent of its deployments' and pools' spans (passes never overlap). */
  let passSpan: Span | undefined;

  async function pass(): Promise<void> {
    settling = false;
    if (!(await leadership.lead())) return;
    await inSpan(ctx.tracer, "reconciler pass", {}, async (span) => {
      passSpan = span;
      try {
        // Decided first, so the same pass starts or stops the replicas it asks for.
        if (await autoscaler.pass().catch((error) => void log.warn("autoscaling pass failed", { error })))
          settling = true;
        await reconcileDeployments();
        await reconcilePools();
        await markSilentNodes(ctx);
        if (Date.now() - lastOrphanScan >= orphanScanMs) {
          lastOrphanScan = Date.now();
          await stopOrphans();
          await retireStaleNodes(ctx);
        }
      } finally {
        passSpan = undefined;
      }
    });
  }

  async function reconcileDeployments() {
    // Live deployments, and deleted ones whose replicas are not cleaned up yet.
    const withReplicas = ctx.db.selectDistinct({ id: replicas.deploymentId }).from(replicas);
    const rows = await ctx.db
      .select()
      .from(deployments)
      .where(or(isNull(deployments.deletedAt), inArray(deployments.id, withReplicas)));
    if (rows.length === 0) return;
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
    const nodeRows = await ctx.db
      .select({ poolId: nodes.poolId, instance: nodes.providerInstanceId, state: nodes.state })
      .from(nodes)
      .where(
        inArray(
          nodes.poolId,
          poolRows.map((p) => p.id),
        ),
      );
    const nodeStates = new Map<string, NodeState>(
      nodeRows.map((n) => [`${n.poolId}/${n.instance}`, n.state]),
    );
    settling ||= rows.some((d) => d.status === "DEPLOYING" || d.status === "STOPPING");
    for (const d of rows) {
      try {
        await inSpan(
          ctx.tracer,
          "reconcile deployment",
          { "llm.deployment.id": d.id, "llm.deployment.name": d.name, "llm.deployment.status": d.status },
          () =>
            reconcileDeployment(
              deps,
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
  }

  async function reconcilePools() {
    const rows = await ctx.db
      .select()
      .from(pools)
      .where(inArray(pools.state, ["Provisioning", "Deleting"]));
    settling ||= rows.length > 0;
    for (const pool of rows) {
      try {
        await inSpan(
          ctx.tracer,
          pool.state === "Provisioning" ? "provision pool" : "release pool",
          { "llm.pool.id": pool.id, "llm.pool.provider": pool.provider },
          () => reconcilePool(pool),
          { parent: passSpan },
        );
      } catch (error) {
        log.warn("pool pass failed; retried next pass", { pool_id: pool.id, error });
      }
    }
  }

  async function reconcilePool(pool: PoolRow) {
    const provider = runtime.providers[pool.provider];
    const spec = {
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
    if (pool.state === "Provisioning") {
      if (!provider) {
        await movePool(ctx.db, pool, "Failed", `the ${pool.provider} provider is not available`, ctx.clock());
        return;
      }
      const result = await provider.provisionPool(spec);
      if (result.state === "Active") {
        await ctx.db.transaction(async (tx) => {
          const moved = await movePool(tx, pool, "Active", null, ctx.clock());
          if (result.providerPoolId && !moved.providerPoolId) {
            await tx
              .update(pools)
              .set({ providerPoolId: result.providerPoolId })
              .where(eq(pools.id, pool.id));
          }
        });
      } else if (result.state === "Failed") {
        await movePool(ctx.db, pool, "Failed", result.reason, ctx.clock());
      }
      return;
    }
    // Deleting: once nothing of it runs, give it back to the provider and forget it, with the
    // stopped, failed and deleted deployments it held (their replicas, history and logs go too).
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

  /** Workers the providers run for this installation that no replica row wants: stopped. */
  async function stopOrphans() {
    const wanted = new Map<string, string>();
    const rows = await ctx.db
      .select({ replica: replicas, deployment: deployments })
      .from(replicas)
      .innerJoin(deployments, eq(deployments.id, replicas.deploymentId));
    for (const { replica, deployment } of rows) {
      if (shouldRun(deployment as DeploymentRow) && isRunningReplica(replica)) {
        wanted.set(replica.id, replica.providerInstanceId as string);
      }
    }
    for (const id of Object.keys(runtime.providers) as ProviderId[]) {
      const provider = runtime.providers[id];
      if (!provider?.listInstances) continue;
      for (const instance of await provider.listInstances()) {
        if (wanted.get(instance.replicaId) === instance.providerInstanceId) continue;
        log.warn("stopping an orphaned worker", {
          provider: id,
          replica_id: instance.replicaId,
          instance: instance.providerInstanceId,
        });
        await provider.stopReplica({ ...instance, endpoint: null });
      }
    }
  }

  function schedule() {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(kick, settling ? Math.min(intervalMs, settlingIntervalMs) : intervalMs);
  }

  function kick() {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    clearTimeout(timer);
    running = (async () => {
      do {
        again = false;
        try {
          await pass();
        } catch (error) {
          log.error("reconcile pass failed", { error });
        }
      } while (again && !stopped);
    })().finally(() => {
      running = undefined;
      schedule();
    });
  }

  runtime.kick = kick;
  kick();

  return {
    kick,
    async pass() {
      while (running) await running;
      running = pass().finally(() => {
        running = undefined;
      });
      await running;
    },
    setHeartbeatUrl(url) {
      settings.heartbeatUrl = url;
    },
    async stop(stopOptions = {}) {
      stopped = true;
      clearTimeout(timer);
      if (runtime.kick === kick) runtime.kick = () => {};
      while (running) await running;
      await pump.stop();
      await leadership.release();
      if (stopOptions.stopWorkers) {
        for (const id of Object.keys(runtime.providers) as ProviderId[]) {
          const provider = runtime.providers[id];
          for (const instance of (await provider?.listInstances?.()) ?? []) {
            await provider?.stopReplica({ ...instance, endpoint: null });
          }
        }
      }
    },
  };
}

/** Copies new replica output into the log hub, and the hub into deployment_logs. */
function createLogPump(
  ctx: AppContext,
  runtime: OrchestrationRuntime,
  tracked: Map<string, Tracked>,
  everyMs: number,
) {
  const log = ctx.log.child({ component: "log-pump" });
  let busy: Promise<void> | undefined;

  async function readOne(replicaId: string) {
    const t = tracked.get(replicaId);
    if (!t) return;
    const chunk = await t.provider.readLogs(t.handle, t.cursor);
    t.cursor = chunk.cursor;
    for (const stream of ["stdout", "stderr"] as const) {
      const lines = chunk.lines.filter((l) => l.stream === stream).map((l) => l.line);
      if (lines.length > 0) runtime.logs.push(t.deploymentId, t.index, stream, lines);
    }
  }

  async function round() {
    for (const replicaId of [...tracked.keys()]) {
      try {
        await readOne(replicaId);
      } catch (error) {
        log.debug("could not read replica output", { replica_id: replicaId, error });
      }
    }
    try {
      await runtime.logs.flush(ctx.db);
    } catch (error) {
      log.warn("could not save deployment logs", { error });
    }
  }

  const timer = setInterval(() => {
    busy ??= round().finally(() => {
      busy = undefined;
    });
  }, everyMs);

  return {
    drain: readOne,
    async stop() {
      clearInterval(timer);
      while (busy) await busy;
      await round();
    },
  };
}
