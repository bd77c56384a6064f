// Worker processes of this machine: launched detached, with their output in files, so they outlive a
// restart of the orchestration process and can be found again from the database (pid in the
// provider instance id) or from /proc (the installation tag in their environment).

import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { propertyOf } from "#core/error-chain.ts";

export const REPLICA_ENV = "LLMP_REPLICA_ID";
export const INSTALLATION_ENV = "LLMP_INSTALLATION";
const instancePrefix = "local-";

/** Tells this installation's workers apart from another's on the same machine (tests run many). */
export const installationTag = (dataDir: string) =>
  createHash("sha256").update(dataDir).digest("hex").slice(0, 16);

export const instanceIdOf = (pid: number) => `${instancePrefix}${pid}`;
export function pidOf(providerInstanceId: string): number | undefined {
  if (!providerInstanceId.startsWith(instancePrefix)) return undefined;
  const pid = Number(providerInstanceId.slice(instancePrefix.length));
  return Number.isInteger(pid) && pid > 1 ? pid : undefined;
}

export interface LaunchedWorker {
  pid: number;
  child: Subprocess;
  stdoutPath: string;
  stderrPath: string;
}

export const logPaths = (workersDir: string, replicaId: string, pid: number) => ({
  stdoutPath: join(workersDir, replicaId, `${pid}.stdout`),
  stderrPath: join(workersDir, replicaId, `${pid}.stderr`),
});

/**
 * Starts `command` in its own session (setsid), stdout and stderr into files (a pipe would break
 * when this process restarts). The worker learns its own pid as PROVIDER_INSTANCE_ID through a
 * shell that execs it: the id its heartbeats carry is then the one the database records.
 */
export function launch(
  workersDir: string,
  replicaId: string,
  command: string[],
  env: Record<string, string>,
): LaunchedWorker {
  const dir = join(workersDir, replicaId);
  mkdirSync(dir, { recursive: true });
  const nonce = crypto.randomUUID();
  const tmpOut = join(dir, `${nonce}.stdout`);
  const tmpErr = join(dir, `${nonce}.stderr`);
  const out = openSync(tmpOut, "a");
  const err = openSync(tmpErr, "a");
  let child: Subprocess;
  try {
    child = Bun.spawn(
      [
        "/bin/sh",
        "-c",
        `PROVIDER_INSTANCE_ID="${instancePrefix}$$"; export PROVIDER_INSTANCE_ID; exec "$@"`,
        "worker",
        ...command,
      ],
      { env, stdin: "ignore", stdout: out, stderr: err, detached: true },
    );
  } finally {
    closeSync(out);
    closeSync(err);
  }
  // The worker must not keep this process alive, nor die with it.
  child.unref();
  const pid = child.pid;
  const paths = logPaths(workersDir, replicaId, pid);
  // Renaming an open file is safe: the worker keeps writing to the same inode.
  renameSync(tmpOut, paths.stdoutPath);
  renameSync(tmpErr, paths.stderrPath);
  // Earlier attempts' output is persisted by then (deployment logs); keep the folder small.
  for (const file of readdirSync(dir)) {
    if (!file.startsWith(`${pid}.`)) rmSync(join(dir, file), { force: true });
  }
  return { pid, child, ...paths };
}

/** Whether a process with this pid exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if (propertyOf(error, "code") !== "EPERM") return false;
  }
  try {
    // "pid (comm) S ...": the state follows the last parenthesis.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    // No /proc (not Linux): kill(pid, 0) above is all there is to know.
    return !existsSync("/proc/self");
  }
}

/** The environment of a process of ours (Linux), or undefined where it cannot be read. */
export function environOf(pid: number): Map<string, string> | undefined {
  try {
    const raw = readFileSync(`/proc/${pid}/environ`, "utf8");
    const env = new Map<string, string>();
    for (const entry of raw.split("\0")) {
      const eq = entry.indexOf("=");
      if (eq > 0) env.set(entry.slice(0, eq), entry.slice(eq + 1));
    }
    return env;
  } catch {
    return undefined;
  }
}

export const canListProcesses = () => existsSync("/proc/self/environ");

/** Processes whose environment carries this installation's tag: pid and replica id. */
export function taggedProcesses(installation: string): { pid: number; replicaId: string }[] {
  if (!canListProcesses()) return [];
  const found: { pid: number; replicaId: string }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    const env = environOf(pid);
    const replicaId = env?.get(REPLICA_ENV);
    // A worker is started in a process group of its own; what it starts inherits its tags but not
    // its group. Counting those helpers as workers made the orphan scan stop a starting worker.
    if (replicaId && env?.get(INSTALLATION_ENV) === installation && leadsItsGroup(pid) && isAlive(pid))
      found.push({ pid, replicaId });
  }
  return found;
}

/** Whether `pid` leads its process group, as a worker launched detached does ("pid (comm) S ppid pgrp"). */
function leadsItsGroup(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) === pid;
  } catch {
    return false;
  }
}

/** SIGTERM to the worker's process group, SIGKILL after `graceMs`; resolves once it is gone. */
export async function terminate(pid: number, child: Subprocess | undefined, graceMs = 5000): Promise<void> {
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig);
    } catch {
      try {
        process.kill(pid, sig);
      } catch {}
    }
  };
  const gone = () => (child ? child.exitCode !== null || child.signalCode !== null : !isAlive(pid));
  if (gone()) return;
  signal("SIGTERM");
  const deadline = Date.now() + graceMs;
  while (!gone() && Date.now() < deadline) await Bun.sleep(25);
  if (!gone()) {
    signal("SIGKILL");
    const hardDeadline = Date.now() + 2000;
    while (!gone() && Date.now() < hardDeadline) await Bun.sleep(25);
  }
}
