// `local`: each replica is a worker process of this machine, started from its engine's local
// command. Pools are this machine, so provisioning is immediate. Workers are detached and write
// their output to files under DATA_DIR/workers, so a restarted orchestration process finds them
// again: the pid is in the provider instance id (`local-<pid>`), and the process's environment
// proves it is the replica's worker of this installation.
import { join } from "node:path";
import type { Subprocess } from "bun";
import type { EngineId } from "../../../db/schema/deployments.ts";
import type { FieldProblem } from "../../../services/errors.ts";
import type { Engine } from "../../engines/engine.ts";
import type {
  ComputeProvider,
  LogChunk,
  ReplicaHandle,
  ReplicaObservation,
  ReplicaSpec,
} from "../provider.ts";
import { readLines, sizeOf } from "./output-files.ts";
import {
  environOf,
  INSTALLATION_ENV,
  installationTag,
  instanceIdOf,
  isAlive,
  launch,
  logPaths,
  pidOf,
  REPLICA_ENV,
  taggedProcesses,
  terminate,
} from "./processes.ts";
import { machineResources } from "./resources.ts";

export interface LocalProviderOptions {
  dataDir: string;
  engines: Partial<Record<EngineId, Engine>>;
  /** Address workers bind; they serve this machine (the inference gateway), not the network. */
  workerHost?: string;
}

/** What this process knows of a worker beyond the database: the child handle and its events. */
interface Worker {
  pid: number;
  child: Subprocess | undefined;
  stdoutPath: string;
  stderrPath: string;
  /** How far stdout was scanned for the worker's JSON events. */
  scanned: number;
  port: number | undefined;
  fatal: string | undefined;
  ready: boolean;
}

interface WorkerEvent {
  event?: unknown;
  port?: unknown;
  reason?: unknown;
}

const positiveInt = (value: unknown) => typeof value === "number" && Number.isInteger(value) && value > 0;
const workerOptions = ["threads", "parallel", "context_size"] as const;

export function createLocalProvider(options: LocalProviderOptions): ComputeProvider {
  const workersDir = join(options.dataDir, "workers");
  const host = options.workerHost ?? "127.0.0.1";
  const installation = installationTag(options.dataDir);
  const workers = new Map<string, Worker>();
  const engines = Object.keys(options.engines).filter(
    (id) => options.engines[id as EngineId]?.localCommand,
  ) as EngineId[];

  function scanEvents(worker: Worker) {
    const { lines, offset } = readLines(worker.stdoutPath, worker.scanned);
    worker.scanned = offset;
    for (const line of lines) {
      if (!line.startsWith("{")) continue;
      let event: WorkerEvent;
      try {
        event = JSON.parse(line) as WorkerEvent;
      } catch {
        continue;
      }
      if (event.event === "ready" && positiveInt(event.port)) worker.port = event.port as number;
      if (event.event === "fatal")
        worker.fatal = typeof event.reason === "string" ? event.reason : "the worker could not start";
    }
  }

  /** A worker this process did not start (it restarted since): ours only if its environment says so. */
  async function adopt(handle: ReplicaHandle, spec: ReplicaSpec): Promise<Worker | undefined> {
    const pid = pidOf(handle.providerInstanceId);
    if (pid === undefined || !isAlive(pid)) return undefined;
    const env = environOf(pid);
    if (env) {
      if (env.get(REPLICA_ENV) !== handle.replicaId || env.get(INSTALLATION_ENV) !== installation)
        return undefined;
    } else if (!handle.endpoint || !(await servesModel(handle.endpoint, spec.deploymentName))) {
      // No /proc (not Linux): the best proof left is that it answers with the deployment's name.
      return undefined;
    }
    const worker: Worker = {
      pid,
      child: undefined,
      ...logPaths(workersDir, handle.replicaId, pid),
      scanned: 0,
      port: undefined,
      fatal: undefined,
      ready: false,
    };
    workers.set(handle.replicaId, worker);
    return worker;
  }

  function exitReason(worker: Worker): ReplicaObservation {
    const code = worker.child?.exitCode ?? null;
    const signal = worker.child?.signalCode ?? null;
    if (worker.fatal) return { phase: "failed", reason: worker.fatal };
    if (code === 2) return { phase: "failed", reason: "the worker exited with code 2 (it cannot start)" };
    const how = signal ? `was killed by ${signal}` : code !== null ? `exited with code ${code}` : "is gone";
    const lastError = lastLine(worker.stderrPath);
    return { phase: "exited", reason: `the worker ${how}${lastError ? `: ${lastError}` : ""}` };
  }

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

    async startReplica(spec) {
      const engine = options.engines[spec.engine];
      if (!engine?.localCommand) throw new Error(`the ${spec.engine} engine cannot run on this machine`);
      if (!spec.modelPath) throw new Error("no model file to load");
      const heartbeat: Record<string, string> = spec.heartbeat
        ? {
            HEARTBEAT_URL: spec.heartbeat.url,
            NODE_TOKEN: spec.heartbeat.nodeToken,
            HEARTBEAT_INTERVAL_MS: String(spec.heartbeat.intervalMs),
            POOL_PROVIDER: "local",
          }
        : {};
      const contextSize = spec.configuration.context_size as number | undefined;
      const launchSpec = engine.localCommand({
        modelPath: spec.modelPath,
        modelName: spec.deploymentName,
        port: 0,
        ...(spec.configuration.threads === undefined
          ? {}
          : { threads: spec.configuration.threads as number }),
        ...(spec.configuration.parallel === undefined
          ? {}
          : { parallel: spec.configuration.parallel as number }),
        env: { HOST: host, ...(contextSize ? { CONTEXT_SIZE: String(contextSize) } : {}), ...heartbeat },
      });
      const env: Record<string, string> = {
        ...inheritedEnv(),
        ...launchSpec.env,
        [REPLICA_ENV]: spec.replicaId,
        [INSTALLATION_ENV]: installation,
      };
      // The launching shell sets it to the worker's own pid, the id the database records.
      delete env.PROVIDER_INSTANCE_ID;
      const launched = launch(workersDir, spec.replicaId, launchSpec.cmd, env);
      workers.set(spec.replicaId, {
        pid: launched.pid,
        child: launched.child,
        stdoutPath: launched.stdoutPath,
        stderrPath: launched.stderrPath,
        scanned: 0,
        port: undefined,
        fatal: undefined,
        ready: false,
      });
      return { replicaId: spec.replicaId, providerInstanceId: instanceIdOf(launched.pid), endpoint: null };
    },

    async stopReplica(handle) {
      const worker = workers.get(handle.replicaId);
      const pid = worker?.pid ?? pidOf(handle.providerInstanceId);
      workers.delete(handle.replicaId);
      if (pid === undefined) return;
      if (!worker) {
        // Not started by this process: only signal it if it is provably the replica's worker.
        const env = environOf(pid);
        if (!env || env.get(REPLICA_ENV) !== handle.replicaId || env.get(INSTALLATION_ENV) !== installation)
          return;
      }
      await terminate(pid, worker?.child);
    },

    async inspectReplica(handle, spec) {
      let worker = workers.get(handle.replicaId);
      if (worker && worker.pid !== pidOf(handle.providerInstanceId)) worker = undefined;
      worker ??= await adopt(handle, spec);
      if (!worker) return { phase: "gone" };
      scanEvents(worker);
      const alive = worker.child
        ? worker.child.exitCode === null && worker.child.signalCode === null
        : isAlive(worker.pid);
      if (!alive) {
        scanEvents(worker);
        workers.delete(handle.replicaId);
        return exitReason(worker);
      }
      if (worker.fatal) return { phase: "starting" };
      if (worker.port === undefined) return { phase: "starting" };
      const endpoint = `http://${host}:${worker.port}/v1`;
      if (!worker.ready) worker.ready = await answersHealth(`http://${host}:${worker.port}/health`);
      return worker.ready ? { phase: "ready", endpoint } : { phase: "starting" };
    },

    async readLogs(handle, cursor): Promise<LogChunk> {
      const pid = pidOf(handle.providerInstanceId);
      if (pid === undefined) return { lines: [], cursor: cursor ?? "" };
      const paths = logPaths(workersDir, handle.replicaId, pid);
      let [from, out, err] = (cursor ?? "").split(":");
      if (from !== String(pid)) {
        // A new process (or a first read): its files from the start, or from now on when asked.
        const fromEnd = cursor === "end";
        out = String(fromEnd ? sizeOf(paths.stdoutPath) : 0);
        err = String(fromEnd ? sizeOf(paths.stderrPath) : 0);
      }
      const o = readLines(paths.stdoutPath, Number(out));
      const e = readLines(paths.stderrPath, Number(err));
      const now = new Date();
      return {
        lines: [
          ...o.lines.map((line) => ({ ts: now, stream: "stdout" as const, line })),
          ...e.lines.map((line) => ({ ts: now, stream: "stderr" as const, line })),
        ],
        cursor: `${pid}:${o.offset}:${e.offset}`,
      };
    },

    async listInstances() {
      return taggedProcesses(installation).map((p) => ({
        replicaId: p.replicaId,
        providerInstanceId: instanceIdOf(p.pid),
      }));
    },
  };
}

/**
 * What a worker inherits from this process: what a program needs to run (PATH, HOME, locale) and
 * GPU and llama.cpp settings, never the platform's secrets (JWT_SECRET, INTERNAL_API_KEY,
 * DATABASE_URL, ADMIN_PASSWORD…).
 */
function inheritedEnv(): Record<string, string> {
  const keep =
    /^(PATH|HOME|USER|SHELL|TMPDIR|TMP|TEMP|LANG|LC_\w+|TZ|LOG_LEVEL|LD_LIBRARY_PATH|CUDA_\w+|LLAMA_\w+|NODE_LLAMA_CPP_\w+)$/;
  return Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => keep.test(e[0]) && e[1] !== undefined),
  );
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
    const body = (await res.json()) as { data?: { id?: string }[] };
    return body.data?.some((m) => m.id === name) ?? false;
  } catch {
    return false;
  }
}

function lastLine(path: string): string | undefined {
  const size = sizeOf(path);
  const { lines } = readLines(path, Math.max(0, size - 4096));
  return lines
    .filter((l) => l.trim() !== "")
    .pop()
    ?.slice(0, 500);
}
