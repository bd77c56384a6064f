// bench/gateway.ts's issue #34 figures rest on two pieces tested here: the stub that answers after a
// chosen delay (the 20 ms upstream of the one-connection latency), and the count of JavaScriptCore
// collections read from BUN_JSC_logGC's lines.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { collectionsPer10k, collectionsSoFar, oneConnectionLatency } from "#bench/gateway-latency.ts";
import { startOpenAiStub } from "#scripts/openai-stub.ts";

const dir = mkdtempSync(join(tmpdir(), "bench-gc-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const chat = (url: string) =>
  fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "stub", messages: [{ role: "user", content: "hi" }] }),
  });

test("the stub answers after its answer delay, and at once without one", async () => {
  const slow = startOpenAiStub({ answerDelayMs: 60 });
  const quick = startOpenAiStub({});
  try {
    let started = performance.now();
    expect((await chat(slow.url)).status).toBe(200);
    const slowMs = performance.now() - started;
    started = performance.now();
    expect((await chat(quick.url)).status).toBe(200);
    const quickMs = performance.now() - started;
    expect(slowMs).toBeGreaterThanOrEqual(55);
    expect(quickMs).toBeLessThan(slowMs);
  } finally {
    slow.stop();
    quick.stop();
  }
});

test("the main thread's collections are counted from BUN_JSC_logGC's lines, per 10k requests", () => {
  const path = join(dir, "gc.log");
  const eden = "[GC<0x1a>: START M 8838kb => EdenCollection, a=0kb ...]\n";
  const full = "[GC<0x1a>: START M 9000kb => FullCollection, a=0kb ...]\n";
  // A worker's heap (the embedded database's) collects too: not the requests' thread, not counted.
  const worker = "[GC<0x2b>: START M 131072kb => FullCollection, a=0kb ...]\n";
  writeFileSync(path, `${eden}noise\n${worker}${eden}${full}`);
  const before = collectionsSoFar(path);
  expect(before).toEqual({ eden: 2, full: 1 });
  writeFileSync(path, `${eden}noise\n${worker}${eden}${full}${eden}${full}${worker}${full}`);
  const after = collectionsSoFar(path);
  expect(collectionsPer10k(before, after, 5_000)).toEqual({ eden: 2, full: 4 });
  expect(collectionsSoFar(join(dir, "absent.log"))).toEqual({ eden: 0, full: 0 });
});

test("added latency is the gateway's minus the bare proxy's of the same round, medians over rounds", async () => {
  // Round by round, bare: 1 / 10 ms, 3 / 30 ms; the gateway 1.1 / 10.5 ms, 4 / 40 ms.
  const answers = [
    { p50: 1, p99: 10 },
    { p50: 1.1, p99: 10.5 },
    { p50: 3, p99: 30 },
    { p50: 4, p99: 40 },
  ];
  const asked: { url: string; connections: number }[] = [];
  const lines = await oneConnectionLatency(
    [
      {
        delayMs: 20,
        bare: { name: "bare", url: "http://bare", body: "{}", headers: {} },
        gateways: [{ name: "gw", url: "http://gw", body: "{}", headers: {} }],
      },
    ],
    {
      rounds: 2,
      seconds: 1,
      log: () => {},
      wrk: async (url, _body, _headers, _seconds, connections) => {
        asked.push({ url, connections });
        const answer = answers.shift() ?? { p50: Number.NaN, p99: Number.NaN };
        return { ...answer, requests: 100, errors: 0 };
      },
    },
  );
  expect(asked.map((a) => a.url)).toEqual(["http://bare", "http://gw", "http://bare", "http://gw"]);
  expect(asked.every((a) => a.connections === 1)).toBe(true);
  // Added p50: 0.1 and 1 -> median 0.55 (FAIL); p99: 0.5 and 10 -> median 5.25 (FAIL).
  expect(lines[1]).toContain("added p50 0.550 ms (target ≤ 0.2: FAIL)");
  expect(lines[1]).toContain("p99 5.250 ms (target ≤ 1: FAIL)");
});
