// Loaded before every test file (bunfig.toml). Keeps test runs quiet unless asked otherwise, and gives the
// run its own TMPDIR (tests/support/leftovers.ts): once every file has run, a worker process or a
// temporary file the run left behind fails it (and is removed, so the next run starts clean).
import { afterAll } from "bun:test";
import { ensureDevKit } from "../../dev/install.ts";
import { currentTestRun, describeLeftovers, removeLeftovers, settledLeftovers } from "./leftovers.ts";

// The test suite's clients (openai, @anthropic-ai/sdk, playwright-core, ...) are a separate install,
// dev/package.json: installed here when missing, before any test file imports them.
ensureDevKit();

process.env.LOG_LEVEL ??= "error";
// Password hashes at argon2id's cheapest sensible cost (1 MiB, 1 pass: about 1 ms against 130 ms at
// the default 64 MiB, 2 passes), for every platform a test starts in a process of its own; in-process
// apps get the same from testConfig. Sign-ins are most of the suite's argon2 work (about 2 minutes of
// a 10-minute run); tests/security/password-hash.test.ts checks the default cost.
process.env.PASSWORD_HASH_MEMORY_KIB ??= "1024";
process.env.PASSWORD_HASH_TIME_COST ??= "1";

const run = currentTestRun();

// Under `bun test --parallel` (CI: .ci/run) each worker has a Redis database of its own (1, 2, ...; the
// server has 16), so one worker's files never see another's keys; PostgreSQL needs nothing of the kind,
// every file makes a database of its own (tests/support/database.ts). Processes a test starts inherit it.
const workerId = Number(process.env.BUN_TEST_WORKER_ID);
if (process.env.REDIS_URL && Number.isInteger(workerId) && workerId >= 0) {
  const url = new URL(process.env.REDIS_URL);
  if (url.pathname === "" || url.pathname === "/") url.pathname = `/${1 + (Math.abs(workerId - 1) % 15)}`;
  process.env.REDIS_URL = url.toString();
}

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
