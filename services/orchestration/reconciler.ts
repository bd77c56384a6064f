// The reconciler: every second (and at once after each API write) it reads what is wanted from the
// database and drives the providers toward it: pools provisioned and removed, replicas started,
// restarted with backoff and stopped, deployments moved through the state machine, silent nodes
// marked UNHEALTHY, and workers nobody wants any more (orphans) stopped. It keeps nothing the
// database cannot rebuild, so a restarted orchestration process picks up where the last one was:
// it finds running workers again through the provider (adoption) and stops the orphans.
// A log pump beside it copies replica output into the log hub (live stream and deployment_logs).

import type { LoadStore } from "#core/ports/load-store.ts";
import type { AppContext, Logger } from "../context.ts";
import { inSpan, type Span } from "../telemetry/tracing.ts";
import { createAutoscaler } from "./autoscaling/autoscaler.ts";
import { DeploymentPass, type PassDeps, type PassSettings, type Tracked } from "./deployment-pass.ts";
import { markSilentNodes, retireStaleNodes } from "./inventory.ts";
import { type Leadership, leadershipOf } from "./leadership.ts";
import { createLogPump } from "./log-pump.ts";
import { stopAllWorkers, stopOrphans } from "./orphans.ts";
import { reconcileDeployments } from "./reconcile-deployments.ts";
import { reconcilePools } from "./reconcile-pools.ts";
import type { WithOrchestration } from "./runtime.ts";

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
  /** Where the inference gateways report load, for autoscaling (default: the orchestration runtime's). */
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

/** Between passes while something is on its way (a replica starting, a deployment stopping). */
const settlingIntervalMs = 100;

function passSettingsOf(options: ReconcilerOptions): PassSettings {
  return {
    heartbeatUrl: options.heartbeatUrl,
    restartBaseMs: options.restartBaseMs ?? 1000,
    restartMaxMs: options.restartMaxMs ?? 60_000,
    startTimeoutMs: options.startTimeoutMs ?? 10 * 60_000,
    maxStartAttempts: options.maxStartAttempts ?? 5,
    drainMs: options.drainMs ?? 5000,
  };
}

export function startReconciler(
  ctx: AppContext & WithOrchestration,
  options: ReconcilerOptions = {},
): Reconciler {
  const log = ctx.log.child({ component: "reconciler" });
  const runtime = ctx.orchestration;
  const intervalMs = options.intervalMs ?? 1000;
  const settings = passSettingsOf(options);
  const tracked = new Map<string, Tracked>();
  const leadership = leadershipOf(ctx.db);
  const pump = createLogPump(ctx, runtime, tracked, options.logPumpMs ?? 250);
  const deps: PassDeps = { ctx, runtime, settings, tracked, drain: pump.drain };
  const pass = passRunner(deps, log, options);
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;
  let again = false;

  function schedule() {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(kick, pass.settling() ? Math.min(intervalMs, settlingIntervalMs) : intervalMs);
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
          await pass.run(leadership);
        } catch (error) {
          log.error("reconcile pass failed", { error });
        }
      } while (again && !stopped);
    })().finally(() => {
      running = undefined;
      schedule();
    });
  }

  const stopWaking = runtime.wakeWith(kick);
  kick();

  return {
    kick,
    async pass() {
      while (running) await running;
      running = pass.run(leadership).finally(() => {
        running = undefined;
        // A timer that fired meanwhile found this pass running and left the next to it: without this
        // the interval's passes stopped after the first pass() a test asked for.
        schedule();
      });
      await running;
    },
    setHeartbeatUrl(url) {
      settings.heartbeatUrl = url;
    },
    async stop(stopOptions = {}) {
      stopped = true;
      clearTimeout(timer);
      stopWaking();
      while (running) await running;
      await pump.stop();
      await leadership.release();
      if (stopOptions.stopWorkers) await stopAllWorkers(ctx);
    },
  };
}

/**
 * One pass, when this process leads: autoscaling decided first (so the same pass starts or stops the
 * replicas it asks for), then deployments, pools, silent nodes and, every orphanScanMs, orphans and
 * stale nodes. `settling` says whether the last pass saw something on its way.
 */
function passRunner(deps: PassDeps, log: Logger, options: ReconcilerOptions) {
  const { ctx, runtime } = deps;
  const orphanScanMs = options.orphanScanMs ?? 5000;
  const autoscaler = createAutoscaler(ctx, options.load ?? ctx.orchestration.load, () => runtime.providers);
  let lastOrphanScan = 0;
  let settling = false;

  async function steps(passSpan: Span | undefined) {
    if (await autoscaler.pass().catch((error) => void log.warn("autoscaling pass failed", { error })))
      settling = true;
    if (await reconcileDeployments(new DeploymentPass(deps), log, passSpan)) settling = true;
    if (await reconcilePools(ctx, log, passSpan)) settling = true;
    await markSilentNodes(ctx);
    if (Date.now() - lastOrphanScan >= orphanScanMs) {
      lastOrphanScan = Date.now();
      await stopOrphans(ctx, log);
      await retireStaleNodes(ctx);
    }
  }

  return {
    settling: () => settling,
    async run(leadership: Leadership): Promise<void> {
      settling = false;
      if (!(await leadership.lead())) return;
      // The pass's span is the parent of its deployments' and pools' spans (passes never overlap).
      await inSpan(ctx.tracer, "reconciler pass", {}, steps);
    },
  };
}
