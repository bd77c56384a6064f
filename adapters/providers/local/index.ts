// `local`: each replica is a worker process of this machine, started from its engine's local
// command. Pools are this machine, so provisioning is immediate. Workers are detached and write
// their output to files under DATA_DIR/workers, so a restarted orchestration process finds them
// again: the pid is in the provider instance id (`local-<pid>`), and the process's environment
// proves it is the replica's worker of this installation. README.md says which file does what.
import { join } from "node:path";
import { type EngineId, engineIds } from "#core/domain.ts";
import type { FieldProblem } from "#core/errors.ts";
import type { Engine } from "../../engines/engine.ts";
import type { ComputeProvider } from "../provider.ts";
import { inspectWorker } from "./inspect-worker.ts";
import { installationTag, instanceIdOf, pidOf, taggedProcesses, terminate } from "./processes.ts";
import { machineResources } from "./resources.ts";
import { startWorker } from "./start-worker.ts";
import { readWorkerLogs } from "./worker-logs.ts";
import { isReplicaWorker, type LocalWorkers, positiveInt } from "./workers.ts";

export interface LocalProviderOptions {
  dataDir: string;
  engines: Partial<Record<EngineId, Engine>>;
  /** Address workers bind; they serve this machine (the inference gateway), not the network. */
  workerHost?: string;
}

const workerOptions = ["threads", "parallel", "context_size"] as const;

export function createLocalProvider(options: LocalProviderOptions): ComputeProvider {
  const local: LocalWorkers = {
    workersDir: join(options.dataDir, "workers"),
    host: options.workerHost ?? "127.0.0.1",
    installation: installationTag(options.dataDir),
    engines: options.engines,
    known: new Map(),
  };
  const engines = Object.keys(options.engines).flatMap((id) => {
    const known = engineIds.find((engine) => engine === id);
    return known && options.engines[known]?.localCommand ? [known] : [];
  });

  return {
    id: "local",
    summary: "Worker processes on this machine",
    capabilities: { engines, gpus: false, pricing: false, needsModelFile: true },

    validateDeployment({ configuration }) {
      const problems: FieldProblem[] = [];
      for (const key of workerOptions) {
        if (configuration[key] !== undefined && !positiveInt(configuration[key])) {
          problems.push({ field: `configuration.${key}`, message: "must be a positive integer" });
        }
      }
      return problems;
    },

    async provisionPool() {
      return { state: "Active" };
    },
    async deprovisionPool() {},
    async listResources() {
      return machineResources();
    },

    startReplica: (spec) => startWorker(local, spec),

    async stopReplica(handle) {
      const pid = pidOf(handle.providerInstanceId) ?? local.known.get(handle.replicaId)?.pid;
      if (pid === undefined) return;
      // Only the worker the handle names: another process tagged with the same replica (an orphan
      // from before a restart) must not take the replica's live worker down with it.
      const worker = local.known.get(handle.replicaId);
      if (worker?.pid !== pid) return stopUnknown(local, handle.replicaId, pid);
      local.known.delete(handle.replicaId);
      await terminate(pid, worker.child);
    },

    inspectReplica: (handle, spec) => inspectWorker(local, handle, spec),
    readLogs: async (handle, cursor) => readWorkerLogs(local.workersDir, handle, cursor),

    async listInstances() {
      return taggedProcesses(local.installation).map((p) => ({
        replicaId: p.replicaId,
        providerInstanceId: instanceIdOf(p.pid),
      }));
    },
  };
}

/** A worker this process did not start (it restarted since): signalled only if provably the replica's. */
async function stopUnknown(local: LocalWorkers, replicaId: string, pid: number): Promise<void> {
  if (isReplicaWorker(pid, replicaId, local.installation)) await terminate(pid, undefined);
}
