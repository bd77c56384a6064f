// Loaded before every test file (bunfig.toml). Keeps test runs quiet unless asked otherwise, and gives the
// run its own TMPDIR (tests/support/leftovers.ts): once every file has run, a worker process or a
// temporary file the run left behind fails it (and is removed, so the next run starts clean).
import { afterAll } from "bun:test";
import { currentTestRun, describeLeftovers, removeLeftovers, settledLeftovers } from "./leftovers.ts";

process.env.LOG_LEVEL ??= "error";

const run = currentTestRun();

// A preload's afterAll runs once, after the last file's own afterAll hooks. Under `bun test --parallel`
// (BUN_TEST_WORKER_ID set) it would run after every file, while the other workers' files still hold
// their processes: the check is then left to scripts/check-test-leftovers.ts, after the whole run.
if (!process.env.BUN_TEST_WORKER_ID)
  afterAll(async () => {
    const left = await settledLeftovers(run, 10_000);
    removeLeftovers(run, left.processes);
    if (left.processes.length > 0 || left.files.length > 0) {
      throw new Error(`the test run left behind (removed now):\n${describeLeftovers(left)}`);
    }
  }, 30_000);
