// Runs a test command (default `bun test`) as one test run with its own id and TMPDIR, then fails if the
// run left a process or a temporary file behind (see tests/support/leftovers.ts). The preload checks the
// same from inside `bun test`; this also sees what outlives the test process itself.
//   bun scripts/check-test-leftovers.ts                       # the whole suite, as CI runs it
//   bun scripts/check-test-leftovers.ts bun test tests/dashboard/typical-workflow.test.ts
import {
  currentTestRun,
  describeLeftovers,
  removeLeftovers,
  settledLeftovers,
} from "#tests/support/leftovers.ts";

const command = process.argv.slice(2);
const run = currentTestRun({ ...process.env, LLMP_TEST_RUN: "" });
const child = Bun.spawn(command.length > 0 ? command : ["bun", "test"], {
  env: { ...process.env, LLMP_TEST_RUN: run.id, TMPDIR: run.dir },
  stdio: ["inherit", "inherit", "inherit"],
});
const code = await child.exited;

const left = await settledLeftovers(run, 10_000);
removeLeftovers(run, left.processes);
if (left.processes.length > 0 || left.files.length > 0) {
  console.error(`\ntest run ${run.id} left behind (removed now):\n${describeLeftovers(left)}`);
  process.exit(code || 1);
}
console.error(`test run ${run.id}: no process or temporary file left behind`);
process.exit(code);
