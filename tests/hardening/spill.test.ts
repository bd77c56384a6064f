// Logs and usage while the database stays away (services/inference/batcher.ts `spill`): past
// `afterMs` of failures the queued records go to DATA_DIR/spill (one batch stays in memory as the next
// attempt), and once a batch is written again they come back and are written, each exactly once. A
// full queue spills its oldest records instead of dropping them.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Batcher } from "#services/inference/batcher.ts";
import { spill, takeSpilled } from "#services/inference/spill.ts";
import { within } from "../support/wait.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setup(options: { afterMs: number; maxQueued?: number }) {
  const dir = mkdtempSync(join(tmpdir(), "llmp-spill-"));
  dirs.push(dir);
  const written: number[] = [];
  let down = true;
  const recovered = Promise.withResolvers<void>();
  const batcher = new Batcher<number>({
    sink: async (batch) => {
      if (down) throw new Error("database unreachable");
      written.push(...batch);
      recovered.resolve();
    },
    maxBatch: 10,
    intervalMs: 60_000,
    maxQueued: options.maxQueued ?? 100_000,
    retry: { baseMs: 1, maxMs: 2 },
    spill: {
      afterMs: options.afterMs,
      put: (records) => {
        spill(dir, "logs", records);
      },
      take: () => takeSpilled<number>(dir, "logs"),
    },
  });
  return {
    batcher,
    written,
    dir,
    /** The first batch written after up(): the retry timer's, its back-off over. */
    recovered: recovered.promise,
    up() {
      down = false;
    },
  };
}

test("past afterMs of failures the queue goes to disk but one batch; after recovery every record is written once", async () => {
  const s = setup({ afterMs: 0 });
  for (let i = 0; i < 95; i++) s.batcher.add(i);
  await s.batcher.flush();
  expect(s.batcher.pending).toBe(10);
  expect(s.batcher.spilled).toBe(85);
  expect(readdirSync(s.dir).length).toBeGreaterThan(0);
  s.up();
  await within(s.recovered, 1000, "a batch written after recovery");
  for (let i = 0; i < 20 && s.written.length < 95; i++) await s.batcher.flush();
  expect(s.written.sort((a, b) => a - b)).toEqual(Array.from({ length: 95 }, (_, i) => i));
  expect(readdirSync(s.dir)).toEqual([]);
  expect(s.batcher.dropped).toBe(0);
  await s.batcher.close(100);
});

test("a full queue spills its oldest records instead of dropping them", async () => {
  const s = setup({ afterMs: 3_600_000, maxQueued: 20 });
  for (let i = 0; i < 50; i++) s.batcher.add(i);
  expect(s.batcher.dropped).toBe(0);
  // Sends start at every tenth record (and fail): at least the records past the bound went to disk.
  expect(s.batcher.spilled).toBeGreaterThanOrEqual(20);
  s.up();
  // The first success brings the spilled records back.
  await within(s.recovered, 1000, "a batch written after recovery");
  for (let i = 0; i < 20 && s.written.length < 50; i++) await s.batcher.flush();
  expect(s.written.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
  await s.batcher.close(100);
});
