// What a test run leaves behind. Every run has an id (LLMP_TEST_RUN) and its own temporary folder,
// /tmp/llmp-run-<id>, set as TMPDIR: every temp directory a test makes (mkdtemp(tmpdir())) is inside it,
// and every process the run starts carries that path, in its environment (TMPDIR, or MODEL_PATH for a
// llama.cpp worker, whose environment is trimmed), its arguments (Chromium's profile) or its working
// directory. After the run the folder must be empty and no such process alive. Linux (/proc) only.
import { mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { join } from "node:path";
import { until } from "./wait.ts";

export const runDirPrefix = "llmp-run-";

export interface TestRun {
  id: string;
  /** The run's TMPDIR. */
  dir: string;
}

/** The run this process belongs to: the one in the environment, or a new one (set there for children). */
export function currentTestRun(env: NodeJS.ProcessEnv = process.env): TestRun {
  const given = env.LLMP_TEST_RUN;
  if (given && env.TMPDIR?.endsWith(`/${runDirPrefix}${given}`)) {
    mkdirSync(env.TMPDIR, { recursive: true });
    return { id: given, dir: env.TMPDIR };
  }
  const id = given || `${Date.now().toString(36)}-${crypto.randomUUID().slice(0, 8)}`;
  const dir = join(env.TMPDIR || "/tmp", `${runDirPrefix}${id}`);
  mkdirSync(dir, { recursive: true });
  env.LLMP_TEST_RUN = id;
  env.TMPDIR = dir;
  return { id, dir };
}

export interface LeftProcess {
  pid: number;
  command: string;
}

const read = (path: string): string => {
  try {
    return readFileSync(path, "latin1");
  } catch {
    return "";
  }
};

/** This process and its ancestors: they carry the run's environment on purpose. */
function ourLine(): Set<number> {
  const pids = new Set<number>();
  for (let pid = process.pid; pid > 1 && !pids.has(pid); ) {
    pids.add(pid);
    const stat = read(`/proc/${pid}/stat`);
    pid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  }
  return pids;
}

/** Live processes (not zombies) whose environment, arguments or working directory name the run's folder. */
export function leftoverProcesses(run: TestRun): LeftProcess[] {
  const ours = ourLine();
  const found: LeftProcess[] = [];
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || ours.has(pid)) continue;
    const stat = read(`/proc/${pid}/stat`);
    if (stat === "" || stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z") continue;
    const command = read(`/proc/${pid}/cmdline`).replaceAll("\0", " ").trim();
    let cwd = "";
    try {
      cwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch {}
    if (
      command.includes(run.dir) ||
      cwd.startsWith(run.dir) ||
      read(`/proc/${pid}/environ`).includes(run.dir)
    ) {
      found.push({ pid, command: command.slice(0, 200) });
    }
  }
  return found;
}

/** What is left in the run's folder. */
export function leftoverFiles(run: TestRun): string[] {
  try {
    return readdirSync(run.dir).map((name) => join(run.dir, name));
  } catch {
    return [];
  }
}

/** Waits up to `graceMs` for the run's processes to end (a stop just asked for may take a moment). */
export async function settledLeftovers(run: TestRun, graceMs: number) {
  try {
    await until(() => leftoverProcesses(run).length === 0, {
      what: "the run's processes to end",
      timeoutMs: graceMs,
      intervalMs: 250,
    });
  } catch {
    // Some are left after the grace: the caller reports them.
  }
  return { processes: leftoverProcesses(run), files: leftoverFiles(run) };
}

/** Ends what is left and removes the folder, so one failed run does not burden the next. */
export function removeLeftovers(run: TestRun, processes: LeftProcess[]): void {
  for (const p of processes) {
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {}
  }
  rmSync(run.dir, { recursive: true, force: true });
}

export function describeLeftovers(left: { processes: LeftProcess[]; files: string[] }): string {
  return [
    ...left.processes.map((p) => `process ${p.pid}: ${p.command}`),
    ...left.files.map((f) => `temporary file or folder: ${f}`),
  ].join("\n");
}
