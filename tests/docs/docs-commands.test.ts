// Every block of README.md and docs/ marked <!-- docs-run --> (tests/docs/blocks.ts), run in bash as a
// reader pastes it after the README's walk-through: one platform on a fresh data directory for all of them,
// the walk-through's variables ($F $O $I $JSON $TOKEN $AUTH $POOL $DEP $KEY) and the names some pages use
// for the same things ($FILTRATION $ORCHESTRATION $BASE $URL $DEPLOYMENT_ID $INTERNAL_API_KEY). A block
// passes when bash, with `set -euo pipefail`, exits 0: a command that fails, a `jq -e` that finds the
// wrong answer or a variable never set fails it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migratedDataDir } from "../support/data-dir.ts";
import { type RunningPlatform, runPlatform } from "../support/process.ts";
import {
  allBlocks,
  root,
  scriptOf,
  shownErrorCodes,
  stopEverything,
  transcriptOf,
  workflowBlock,
} from "./blocks.ts";

const hasTools = ["jq", "curl", "setsid"].every((tool) => Bun.which(tool) !== null);
const blocks = allBlocks().filter((b) => b.marker.kind === "run");
const password = "docs commands password";
const internalKey = "docs-commands-internal-key-0123456789";

let platform: RunningPlatform | undefined;
let dataDir = "";
let scratch = "";

/** Runs `script` in its own process group (so whatever it leaves in the background is ended with it). */
async function bash(script: string, timeoutMs: number) {
  const proc = Bun.spawn(["setsid", "bash", "-c", script], {
    cwd: root,
    env: { ...process.env, TMPDIR: scratch },
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), timeoutMs);
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  clearTimeout(timer);
  try {
    process.kill(-proc.pid, "SIGKILL");
  } catch {
    // The group is gone already: nothing was left behind.
  }
  return { out, err, code };
}

beforeAll(async () => {
  if (!hasTools) return;
  dataDir = await migratedDataDir("llmp-test-docs-");
  scratch = mkdtempSync(join(tmpdir(), "llmp-test-docs-scratch-"));
  platform = await runPlatform({
    DATA_DIR: dataDir,
    ADMIN_PASSWORD: password,
    INTERNAL_API_KEY: internalKey,
    // docs/providers.md points provider settings at the fakes on this machine.
    PROVIDER_URL_ALLOWED_HOSTS: "127.0.0.1",
    PROVIDER_URL_ALLOW_HTTP: "true",
  });
  const walk = await bash(
    `set -e
export DATA_DIR='${dataDir}' ADMIN_PASSWORD='${password}'
F=http://127.0.0.1:${platform.ports.filtration} O=http://127.0.0.1:${platform.ports.orchestration}
I=http://127.0.0.1:${platform.ports.inference} G=127.0.0.1:${platform.ports.grpc}
{
${workflowBlock("README.md", "readme-workflow")}
} >/dev/null
FILTRATION=$F ORCHESTRATION=$O INFERENCE=$I BASE=$I/v1 URL=$I DEPLOYMENT_ID=$DEP INTERNAL_API_KEY='${internalKey}'
declare -p DATA_DIR ADMIN_PASSWORD F O I G JSON TOKEN AUTH POOL DEP KEY MODELS FILTRATION ORCHESTRATION INFERENCE BASE URL DEPLOYMENT_ID INTERNAL_API_KEY`,
    120_000,
  );
  expect({ code: walk.code, err: walk.err }).toEqual({ code: 0, err: "" });
  // Only the declarations reach stdout: the walk-through's own output went to /dev/null.
  const variables = walk.out.replaceAll("declare -- ", "export ").replaceAll("declare -x ", "export ");
  writeFileSync(join(scratch, "variables.sh"), variables);
}, 150_000);

afterAll(async () => {
  if (platform) {
    // The platform leaves its workers running when it stops (the next start adopts them): stop them first.
    await bash(`source '${join(scratch, "variables.sh")}'\n${stopEverything}`, 60_000);
    await platform.stop();
  }
  for (const dir of [dataDir, scratch]) if (dir) rmSync(dir, { recursive: true, force: true });
});

test("some blocks are marked to run", () => {
  expect(blocks.length).toBeGreaterThan(5);
});

const stepEnd = "--- end of a transcript's command ---";

for (const block of blocks) {
  const steps = transcriptOf(block);
  const script = steps
    ? steps.map((step) => `${step.command}\nprintf '\\n%s\\n' "${stepEnd}"`).join("\n")
    : scriptOf(block);
  test.skipIf(!hasTools)(
    `${block.file}:${block.line} runs as pasted`,
    async () => {
      const run = await bash(
        `source '${join(scratch, "variables.sh")}'\nset -euo pipefail\n${script}`,
        90_000,
      );
      expect({ code: run.code, out: run.out, err: run.err }).toMatchObject({ code: 0 });
      if (!steps) return;
      // A transcript's error bodies are what the commands answer now.
      const outputs = run.out.split(stepEnd);
      const stale = steps.flatMap((step, i) =>
        shownErrorCodes(step)
          .filter((code) => !outputs[i]?.includes(`"code":"${code}"`))
          .map((code) => ({ command: step.command, shown: code, answered: outputs[i]?.trim() })),
      );
      expect(stale).toEqual([]);
    },
    100_000,
  );
}
