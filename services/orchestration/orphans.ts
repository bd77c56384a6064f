// Workers the providers run for this installation that no replica row wants (orphans), and stopping
// every worker when the platform is asked to (tests, and a stop with stopWorkers).

import { eq } from "drizzle-orm";
import { deployments, replicas } from "#db/schema/index.ts";
import type { AppContext, Logger } from "../context.ts";
import { isRunningReplica, shouldRun } from "./deployment-pass.ts";
import type { WithOrchestration } from "./runtime.ts";

/** Stops the workers no running replica of a deployment that should run wants. */
export async function stopOrphans(ctx: AppContext & WithOrchestration, log: Logger): Promise<void> {
  const wanted = new Map<string, string>();
  const rows = await ctx.db
    .select({ replica: replicas, deployment: deployments })
    .from(replicas)
    .innerJoin(deployments, eq(deployments.id, replicas.deploymentId));
  for (const { replica, deployment } of rows) {
    if (shouldRun(deployment) && isRunningReplica(replica) && replica.providerInstanceId !== null) {
      wanted.set(replica.id, replica.providerInstanceId);
    }
  }
  const { providers } = ctx.orchestration;
  for (const provider of Object.values(providers)) {
    if (!provider?.listInstances) continue;
    for (const instance of await provider.listInstances()) {
      if (wanted.get(instance.replicaId) === instance.providerInstanceId) continue;
      log.warn("stopping an orphaned worker", {
        provider: provider.id,
        replica_id: instance.replicaId,
        instance: instance.providerInstanceId,
      });
      await provider.stopReplica({ ...instance, endpoint: null });
    }
  }
}

/** Stops every worker the providers list, wanted or not. */
export async function stopAllWorkers(ctx: AppContext & WithOrchestration): Promise<void> {
  const { providers } = ctx.orchestration;
  for (const provider of Object.values(providers)) {
    for (const instance of (await provider?.listInstances?.()) ?? []) {
      await provider?.stopReplica({ ...instance, endpoint: null });
    }
  }
}
