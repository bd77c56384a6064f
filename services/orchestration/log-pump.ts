// The log pump beside the reconciler: copies new replica output into the log hub (live stream), and
// the hub into deployment_logs.

import type { AppContext } from "../context.ts";
import type { Tracked } from "./deployment-pass.ts";
import type { OrchestrationRuntime } from "./runtime.ts";

/** Copies new replica output into the log hub, and the hub into deployment_logs. */
export function createLogPump(
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
