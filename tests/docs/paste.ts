// Pasting documented shell blocks as a newcomer would: each paste runs in a new bash, unchanged, against
// a platform of its own started as `bun start` does, on a fresh data directory. Shared by the README's
// walk-through (readme-workflow.test.ts) and the docs' walk-throughs that continue from it
// (docs-walkthroughs.test.ts, guardrails-walkthrough.test.ts), three files so that a parallel test run
// spreads them over its workers (together they were the run's longest file, about 250-310 s).
import { expect } from "bun:test";
import { rmSync } from "node:fs";
import { migratedDataDir } from "../support/data-dir.ts";
import { type RunningPlatform, runPlatform } from "../support/process.ts";
import { root, stopEverything, workflowBlock } from "./blocks.ts";

export const hasOathtool = Bun.which("oathtool") !== null;
export const hasJq = ["jq", "curl", "setsid"].every((tool) => Bun.which(tool) !== null);

const password = "readme walk-through password";
const started: { platform: RunningPlatform; dataDir: string }[] = [];
/** Each paste's process group: what a paste leaves in the background (the README's stand-in for a hosted
 * API lives from one paste to the next, until the clean-up) is ended with it at the latest here. */
const pasteGroups: number[] = [];

/**
 * Ends what the pastes left and stops the platforms, each file's afterAll: the lists are emptied, since
 * a test process may run several files one after another with this module loaded once.
 */
export async function cleanUpPastes(): Promise<void> {
  for (const group of pasteGroups.splice(0)) {
    try {
      process.kill(-group, "SIGTERM");
    } catch {
      // The group is gone already: nothing was left behind.
    }
  }
  await Promise.all(
    started.splice(0).map(async ({ platform, dataDir }) => {
      await platform.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }),
  );
}

/**
 * A platform of its own on a fresh data directory, as `bun start` runs it (its embedded database already
 * migrated: tests/support/data-dir.ts).
 */
export async function startPlatform() {
  const dataDir = await migratedDataDir("llmp-test-readme-");
  try {
    // 60 s: on a loaded two-core machine the first start (migrations) has taken over 30 s.
    const platform = await runPlatform({ DATA_DIR: dataDir, ADMIN_PASSWORD: password }, 60_000);
    started.push({ platform, dataDir });
    return { platform, dataDir };
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/** Runs `script` in a new bash, as a user's shell with the README's variables: its exit code and output. */
export async function pasteInto(
  { platform, dataDir }: { platform: RunningPlatform; dataDir: string },
  script: string,
  env: Record<string, string> = {},
) {
  // Whatever happens, no worker outlives the test: the platform leaves its workers running on purpose.
  // In a process group of its own (setsid), ended after the tests: see pasteGroups.
  const proc = Bun.spawn(["setsid", "bash", "-c", `trap '${stopEverything}' EXIT\n${script}`], {
    cwd: root,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      ADMIN_PASSWORD: password,
      F: `http://127.0.0.1:${platform.ports.filtration}`,
      O: `http://127.0.0.1:${platform.ports.orchestration}`,
      I: `http://127.0.0.1:${platform.ports.inference}`,
      ...env,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  pasteGroups.push(proc.pid);
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { out, err, code };
}

/** Runs `script` in bash against a platform of its own; it must succeed with nothing on stderr. */
export async function runAsPasted(script: string): Promise<string> {
  const run = await pasteInto(await startPlatform(), `set -e\n${script}`);
  expect({ code: run.code, err: run.err }).toEqual({ code: 0, err: "" });
  return run.out;
}

export const walkThrough = () => workflowBlock("README.md", "readme-workflow");
/** Stops what a walk-through started, so no worker outlives the test. */
export const stopDeployment = `curl -sf $O/deployment/terminate -H "$AUTH" -H "$JSON" -d '{"deployment_id":"'"$DEP"'"}' >/dev/null
until curl -sf $O/deployment/status/$DEP -H "$AUTH" | jq -e '.status == "STOPPED"' >/dev/null; do sleep 1; done`;
