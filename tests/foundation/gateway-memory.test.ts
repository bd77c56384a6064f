// bench/gateway-memory.ts reads JavaScriptCore's own collection log (BUN_JSC_logGC=1): these tests
// run a Bun process that collects a known number of times and check the counts read from its log.
import { expect, test } from "bun:test";
import { countCollections, residentMiB } from "#bench/gateway-memory.ts";

async function gcLogOf(script: string): Promise<string> {
  const proc = Bun.spawn([process.execPath, "-e", script], {
    env: { ...process.env, BUN_JSC_logGC: "1" },
    stdout: "ignore",
    stderr: "pipe",
  });
  const log = await new Response(proc.stderr).text();
  expect(await proc.exited).toBe(0);
  return log;
}

test("full collections asked for are counted as full, with their pauses", async () => {
  const log = await gcLogOf("for (let i = 0; i < 5; i++) Bun.gc(true);");
  const counts = countCollections(log);
  // Bun may collect on its own at start or exit: at least the five asked for.
  expect(counts.full).toBeGreaterThanOrEqual(5);
  expect(counts.longestFullPauseMs).toBeGreaterThan(0);
  expect(counts.fullPauseMs).toBeGreaterThanOrEqual(counts.longestFullPauseMs);
});

test("allocation without asking collects in eden collections", async () => {
  const log = await gcLogOf(
    "let keep = []; for (let i = 0; i < 400000; i++) { keep.push({ text: 'x'.repeat(64) + i }); if (keep.length > 1000) keep = []; }",
  );
  const counts = countCollections(log);
  expect(counts.eden).toBeGreaterThan(0);
});

test("only the log after the offset counts", async () => {
  const log = await gcLogOf("for (let i = 0; i < 3; i++) Bun.gc(true);");
  expect(countCollections(log, log.length).full).toBe(0);
  expect(countCollections("").full).toBe(0);
});

test("resident memory of a live process: its peak is at least its current size", () => {
  const { rss, peak } = residentMiB(process.pid);
  expect(rss).toBeGreaterThan(0);
  expect(peak).toBeGreaterThanOrEqual(rss);
});
