// A /health prober on a thread of its own, for tests/guardrails/event-loop.test.ts: it asks the gateway's
// /health every few milliseconds while the test's work runs, and keeps the slowest answer and the
// request loop's own CPU time during it (the main thread's schedstat, which any thread may read).
// Asked from the main thread itself, back to back, the probe kept one core busy answering /health for
// as long as the work ran (50 s beside a 1.1 MB upload in a CI run), starving the nice-10 worker doing
// the work. Here the probe's timer runs on its own loop, so a stalled request loop still holds every
// request sent during the stall, which is what /health's time measures.

interface Start {
  url: string;
  /** /proc/<pid>/task/<pid>/schedstat of the request loop; undefined off Linux. */
  schedstat: string | undefined;
  intervalMs: number;
}

const loopCpuMs = async (path: string | undefined): Promise<number | undefined> =>
  path === undefined ? undefined : Number((await Bun.file(path).text()).split(" ")[0]) / 1e6;

let stopped = false;
let worstMs = 0;
let worstLoopMs: number | undefined;

async function probe({ url, schedstat }: Start): Promise<void> {
  const cpu = await loopCpuMs(schedstat);
  const started = performance.now();
  const res = await fetch(`${url}/health`);
  await res.arrayBuffer();
  worstMs = Math.max(worstMs, performance.now() - started);
  const after = await loopCpuMs(schedstat);
  if (cpu !== undefined && after !== undefined) worstLoopMs = Math.max(worstLoopMs ?? 0, after - cpu);
}

self.onmessage = async (event: MessageEvent<Start | "stop">) => {
  if (event.data === "stop") {
    stopped = true;
    return;
  }
  const start = event.data;
  while (!stopped) {
    await probe(start);
    await new Promise((resolve) => setTimeout(resolve, start.intervalMs));
  }
  self.postMessage({ worstMs, worstLoopMs });
};
