// Where a replica's worker is: alive and serving, still starting, gone, or exited and why. A worker
// this process did not start (it restarted since) is adopted only when it is provably the replica's.
import { propertyOf } from "#core/error-chain.ts";
import type { ReplicaHandle, ReplicaObservation, ReplicaSpec } from "../provider.ts";
import { isAlive, logPaths, pidOf } from "./processes.ts";
import {
  exitReason,
  isReplicaWorker,
  type LocalWorkers,
  newWorker,
  scanEvents,
  type Worker,
} from "./workers.ts";

export async function inspectWorker(
  local: LocalWorkers,
  handle: ReplicaHandle,
  spec: ReplicaSpec,
): Promise<ReplicaObservation> {
  let worker = local.known.get(handle.replicaId);
  if (worker && worker.pid !== pidOf(handle.providerInstanceId)) worker = undefined;
  worker ??= await adopt(local, handle, spec);
  if (!worker) return { phase: "gone" };
  scanEvents(worker);
  const alive = worker.child
    ? worker.child.exitCode === null && worker.child.signalCode === null
    : isAlive(worker.pid);
  if (!alive) {
    scanEvents(worker);
    local.known.delete(handle.replicaId);
    return exitReason(worker);
  }
  if (worker.fatal) return { phase: "starting" };
  if (worker.port === undefined) return { phase: "starting" };
  const endpoint = `http://${local.host}:${worker.port}/v1`;
  if (!worker.ready) worker.ready = await answersHealth(`http://${local.host}:${worker.port}/health`);
  return worker.ready ? { phase: "ready", endpoint } : { phase: "starting" };
}

/** A worker this process did not start (it restarted since): ours only if its environment says so. */
async function adopt(
  local: LocalWorkers,
  handle: ReplicaHandle,
  spec: ReplicaSpec,
): Promise<Worker | undefined> {
  const pid = pidOf(handle.providerInstanceId);
  if (pid === undefined || !isAlive(pid)) return undefined;
  const ours = isReplicaWorker(pid, handle.replicaId, local.installation);
  if (ours === false) return undefined;
  if (
    ours === undefined &&
    (!handle.endpoint || !(await servesModel(handle.endpoint, spec.deploymentName)))
  ) {
    // No /proc (not Linux): the best proof left is that it answers with the deployment's name.
    return undefined;
  }
  const worker = newWorker(pid, undefined, logPaths(local.workersDir, handle.replicaId, pid));
  local.known.set(handle.replicaId, worker);
  return worker;
}

async function answersHealth(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1500) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

async function servesModel(endpoint: string, name: string): Promise<boolean> {
  try {
    const res = await fetch(`${endpoint}/models`, { signal: AbortSignal.timeout(1500) });
    if (!res.ok) return false;
    const body: unknown = await res.json();
    const data = propertyOf(body, "data");
    return Array.isArray(data) && data.some((m) => propertyOf(m, "id") === name);
  } catch {
    return false;
  }
}
