// A gateway's load report counts the most requests at once since the last report, so requests
// shorter than the interval still count (a snapshot saw them as idle); waiting requests are reported
// at once (the demand that scales from zero); an idle deployment's report drops to zero.
import { afterEach, expect, test } from "bun:test";
import { InProcessLoadStore } from "#core/ports/load-store.ts";
import { createLogger } from "#server/log.ts";
import { LoadReporter } from "#services/orchestration/autoscaling/load-reporter.ts";

const reporters: LoadReporter[] = [];
afterEach(async () => {
  for (const r of reporters.splice(0)) await r.close();
});
const make = (store: InProcessLoadStore, onDemand?: () => void) => {
  const r = new LoadReporter({ store, log: createLogger("silent"), intervalMs: 60_000, onDemand });
  reporters.push(r);
  return r;
};

test("a request that ended before the report still counts in it; the next report is idle", async () => {
  const store = new InProcessLoadStore();
  const reporter = make(store);
  const d = crypto.randomUUID();
  const first = reporter.enter(d);
  const second = reporter.enter(d);
  first();
  second();
  reporter.tokens(d, 30);
  await reporter.flush();
  const seen = (await store.sum([d])).get(d);
  expect(seen?.inFlight).toBe(2);
  expect(seen?.tokensPerSecond).toBeGreaterThan(0);
  await reporter.flush();
  expect((await store.sum([d])).get(d)).toEqual({ inFlight: 0, queued: 0, tokensPerSecond: 0 });
});

test("a request that starts waiting is reported at once and wakes the orchestrator", async () => {
  const store = new InProcessLoadStore();
  let woken = 0;
  const reporter = make(store, () => woken++);
  const d = crypto.randomUUID();
  const release = reporter.queue(d);
  await reporter.flush();
  expect((await store.sum([d])).get(d)?.queued).toBe(1);
  expect(woken).toBe(1);
  release();
  release();
  expect(reporter.current(d)).toEqual({ inFlight: 0, queued: 0 });
});
