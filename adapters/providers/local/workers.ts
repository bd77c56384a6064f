// What this process knows of the local workers beyond the database, and what it reads from their
// output files: the JSON events a worker prints (ready on a port, fatal with a reason) and, once it
// has gone, why.
import type { Subprocess } from "bun";
import type { EngineId } from "#core/domain.ts";
import type { Engine } from "../../engines/engine.ts";
import type { ReplicaObservation } from "../provider.ts";
import { readLines, sizeOf } from "./output-files.ts";
import { environOf, INSTALLATION_ENV, REPLICA_ENV } from "./processes.ts";

/** What the local provider's parts share: where workers live, and the ones this process knows. */
export interface LocalWorkers {
  workersDir: string;
  /** Address workers bind; they serve this machine (the inference gateway), not the network. */
  host: string;
  installation: string;
  engines: Partial<Record<EngineId, Engine>>;
  /** By replica id. */
  known: Map<string, Worker>;
}

/** A worker: the child handle when this process started it, and what its output said so far. */
export interface Worker {
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

export const newWorker = (
  pid: number,
  child: Subprocess | undefined,
  paths: { stdoutPath: string; stderrPath: string },
): Worker => ({ pid, child, ...paths, scanned: 0, port: undefined, fatal: undefined, ready: false });

export const positiveInt = (value: unknown): value is number =>
  typeof value === "number" && Number.isInteger(value) && value > 0;

/**
 * Whether process `pid` is provably this replica's worker of this installation: its environment
 * says so. Undefined when the environment cannot be read (no /proc: not Linux).
 */
export function isReplicaWorker(pid: number, replicaId: string, installation: string): boolean | undefined {
  const env = environOf(pid);
  if (!env) return undefined;
  return env.get(REPLICA_ENV) === replicaId && env.get(INSTALLATION_ENV) === installation;
}

interface WorkerEvent {
  event?: unknown;
  port?: unknown;
  reason?: unknown;
}

/** Any JSON object is a worker event; each field is checked where it is read. */
const isWorkerEvent = (value: unknown): value is WorkerEvent => typeof value === "object" && value !== null;

/** Reads the worker's stdout on from where it was left, for its `ready` and `fatal` events. */
export function scanEvents(worker: Worker) {
  const { lines, offset } = readLines(worker.stdoutPath, worker.scanned);
  worker.scanned = offset;
  for (const line of lines) {
    if (!line.startsWith("{")) continue;
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isWorkerEvent(event)) continue;
    if (event.event === "ready" && positiveInt(event.port)) worker.port = event.port;
    if (event.event === "fatal")
      worker.fatal = typeof event.reason === "string" ? event.reason : "the worker could not start";
  }
}

/** Why a worker that is no longer alive went: failed (starting again will not help) or exited. */
export function exitReason(worker: Worker): ReplicaObservation {
  const code = worker.child?.exitCode ?? null;
  const signal = worker.child?.signalCode ?? null;
  if (worker.fatal) return { phase: "failed", reason: worker.fatal };
  if (code === 2) return { phase: "failed", reason: "the worker exited with code 2 (it cannot start)" };
  const how = signal ? `was killed by ${signal}` : code !== null ? `exited with code ${code}` : "is gone";
  const lastError = lastLine(worker.stderrPath);
  return { phase: "exited", reason: `the worker ${how}${lastError ? `: ${lastError}` : ""}` };
}

function lastLine(path: string): string | undefined {
  const size = sizeOf(path);
  const { lines } = readLines(path, Math.max(0, size - 4096));
  return lines
    .filter((l) => l.trim() !== "")
    .pop()
    ?.slice(0, 500);
}
