// `bun run stop-workers` (README, Troubleshooting) ends the workers of this checkout's data directory and
// leaves another installation's alone, on the same host: what `pkill -f worker.ts` did not.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  INSTALLATION_ENV,
  installationTag,
  isAlive,
  REPLICA_ENV,
} from "#adapters/providers/local/processes.ts";

const root = join(import.meta.dir, "..", "..");
const ours = mkdtempSync(join(tmpdir(), "llmp-test-stop-ours-"));
const theirs = mkdtempSync(join(tmpdir(), "llmp-test-stop-theirs-"));
const started: number[] = [];

afterAll(() => {
  for (const pid of started) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {}
  }
  for (const dir of [ours, theirs]) rmSync(dir, { recursive: true, force: true });
});

/** A stand-in worker: a process leading its own group, tagged as the local provider tags its workers. */
function fakeWorker(dataDir: string): number {
  const child = Bun.spawn(["setsid", "sleep", "120"], {
    env: { ...process.env, [INSTALLATION_ENV]: installationTag(resolve(dataDir)), [REPLICA_ENV]: "r-1" },
    stdio: ["ignore", "ignore", "ignore"],
  });
  child.unref();
  started.push(child.pid);
  return child.pid;
}

test("stop-workers ends this data directory's workers, not another installation's", async () => {
  const mine = fakeWorker(ours);
  const other = fakeWorker(theirs);
  const run = Bun.spawnSync(["bun", "run", "stop-workers"], {
    cwd: root,
    env: { ...process.env, DATA_DIR: ours },
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(run.exitCode).toBe(0);
  expect(run.stdout.toString()).toContain("stopped 1 worker(s)");
  expect(isAlive(mine)).toBe(false);
  expect(isAlive(other)).toBe(true);
});
