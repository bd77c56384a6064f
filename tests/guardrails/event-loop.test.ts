// Inputs that used to hold the event loop for seconds (issue 33, findings 2 and 8): with the PII policy
// `redact`, 600 KB of IP addresses in a chat (22-39 s on main), 200 KB of phone numbers or card
// numbers, 400 KB of e-mail addresses through the guardrail preview, 1 MB through
// /internal/guardrails/scan (84 s). Each is sent while `/health` is asked every 5 ms, from a thread of
// its own, on a real port of the same process; the slowest `/health` must stay short. The 50 ms holds, without
// slack, for the time the request loop itself spends on a CPU during one /health answer (measured
// figures in docs/security.md); the wall-clock bound tolerates a shared 2-core CI machine, where the
// worker threads and other processes compete with the request loop for the cores (on main: seconds).

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { eq, sql } from "drizzle-orm";
import { knowledgeChunks } from "#db/schema/index.ts";
import type { POST as scanRoute } from "#routes/filtration/internal/guardrails/scan.ts";
import type { POST as previewRoute } from "#routes/filtration/management/deployments/[id]/preview.ts";
import { evaluate, SCAN_CAPS } from "#services/guardrails/evaluate.ts";
import { evaluateOffLoop, INLINE_SCAN_CHARS } from "#services/guardrails/off-loop.ts";
import type { GuardrailsPolicy } from "#services/guardrails/policy.ts";
import { chat, type GatewayTest, setPolicy, startGatewayTest } from "../inference/support.ts";
import { createCollection, uploadFiles } from "../knowledge-base/support.ts";
import { call, type ErrorBody } from "../support/app.ts";

const redactPii: GuardrailsPolicy = { input: { pii: { action: "redact" } } };

// The request loop's own time on a CPU (Linux: the main thread's schedstat, in ns): on a shared 2-core
// machine a /health answer may also wait while other processes hold the cores, which no code of ours
// can prevent; the loop's CPU time during that answer is what the platform itself kept it waiting.
const schedstat = `/proc/${process.pid}/task/${process.pid}/schedstat`;

/** Issue 33: /health under 50 ms. Held by the loop's own CPU time, which the machine's load does not add to. */
const LOOP_BOUND_MS = 50;
/**
 * The wall-clock bound. Where the loop's CPU time is measured (Linux), the wall clock only has to catch
 * what CPU time does not show (the loop blocked in a system call) and the stalls of seconds this file was
 * written against (22-39 s on main): 2 s, since a CI run shares its two cores between three test
 * processes, the type-check and the PGlite phase (the 1.1 MB upload below failed a CI run at 400 ms,
 * whose log did not say which bound). Elsewhere the wall clock is all there is: 400 ms.
 */
const HEALTH_BOUND_MS = existsSync(schedstat) ? 2_000 : 400;

interface Beside<T> {
  result: T;
  /** The slowest /health answer (wall clock). */
  worstMs: number;
  /** The most CPU time the request loop spent during one /health answer; undefined off Linux. */
  worstLoopMs: number | undefined;
}

/**
 * Runs `work` while a prober on its own thread asks /health every 5 ms (health-prober.ts): the slowest
 * answer, and the loop's part in it. A stall that begins between two probes is seen from the next one,
 * at most 5 ms into it, so the figures may undercount a stall by that much.
 */
async function healthBeside<T>(url: string, work: () => Promise<T>): Promise<Beside<T>> {
  // The gateway shares this process with the test runner: a full collection of the garbage that earlier
  // test files left (60 ms in a whole-suite run) would land in a /health answer and be counted as ours.
  Bun.gc(true);
  const prober = new Worker(new URL("./health-prober.ts", import.meta.url));
  try {
    const figures = new Promise<{ worstMs: number; worstLoopMs: number | undefined }>((resolve, reject) => {
      prober.onmessage = (event) => resolve(event.data);
      prober.onerror = (event) => reject(new Error(`the /health prober failed: ${event.message}`));
    });
    prober.postMessage({ url, schedstat: existsSync(schedstat) ? schedstat : undefined, intervalMs: 5 });
    const result = await work();
    prober.postMessage("stop");
    const { worstMs, worstLoopMs } = await figures;
    // The figures docs/security.md quotes, one line per input.
    console.log(
      `slowest /health: ${worstMs.toFixed(1)} ms (the loop's own CPU time in one answer: ${worstLoopMs?.toFixed(1) ?? "n/a"} ms)`,
    );
    return { result, worstMs, worstLoopMs };
  } finally {
    prober.terminate();
  }
}

/**
 * Both bounds: the loop's own part under the 50 ms (where measurable), the wall clock under its
 * bound. A failure prints both figures, so a CI log says which bound was missed and by how much.
 */
function expectFast({ worstMs, worstLoopMs }: { worstMs: number; worstLoopMs: number | undefined }) {
  const figures = { worstMs: Math.round(worstMs), worstLoopMs: worstLoopMs && Math.round(worstLoopMs) };
  expect({
    ...figures,
    loopWithinBound: worstLoopMs === undefined || worstLoopMs < LOOP_BOUND_MS,
    wallWithinBound: worstMs < HEALTH_BOUND_MS,
  }).toEqual({ ...figures, loopWithinBound: true, wallWithinBound: true });
}

const fill = (unit: string, bytes: number) => unit.repeat(Math.ceil(bytes / unit.length));

describe("no input stalls the loop", () => {
  let g: GatewayTest;
  beforeAll(async () => {
    g = await startGatewayTest();
    await setPolicy(g, "guardrails", redactPii);
  }, 30_000);
  afterAll(() => g.close(), 30_000);

  test.each([
    ["600 KB of IP addresses", "192.168.1.1 ".repeat(50_000)],
    ["200 KB of phone numbers", fill("+1 415 555 0100 ", 200_000)],
    ["200 KB of card numbers", fill("4111 1111 1111 1111 ", 200_000)],
  ])(
    "a chat of %s with PII redact: /health stays fast",
    async (_, content) => {
      const { result, ...times } = await healthBeside(g.url, async () => {
        const res = await chat(g, { messages: [{ role: "user", content }] });
        await res.arrayBuffer();
        return res.status;
      });
      expect(result).toBe(200);
      expectFast(times);
    },
    60_000,
  );

  test("400 KB of e-mail addresses through the guardrail preview: /health stays fast, the text is redacted", async () => {
    const content = fill("john.doe@example.com ", 400_000);
    const { result, ...times } = await healthBeside(g.url, () =>
      call<typeof previewRoute>(g.o.filtration, "POST", `/management/deployments/${g.deploymentId}/preview`, {
        token: g.o.token,
        body: { messages: [{ role: "user", content }] },
      }),
    );
    expect(result.status).toBe(200);
    const redacted = result.body.messages.at(-1)?.content;
    if (typeof redacted !== "string") throw new Error("the preview's last message has no text content");
    expect(redacted.startsWith("[EMAIL] [EMAIL]")).toBe(true);
    // Past the PII scanner's cap, the text is not read: `redact` masks it whole, with the address that
    // straddles the cap.
    expect(redacted.endsWith(" [UNSCANNED]")).toBe(true);
    expect(redacted.includes("john")).toBe(false);
    expectFast(times);
  }, 60_000);

  test("1 MB through /internal/guardrails/scan: /health stays fast; past the cap the action decides", async () => {
    const text = fill("192.168.1.1 ", 1024 * 1024);
    const { result, ...times } = await healthBeside(g.url, () =>
      call<typeof scanRoute>(g.o.filtration, "POST", "/internal/guardrails/scan", {
        headers: { "x-internal-api-key": g.o.t.config.internalApiKey },
        body: { text, direction: "input", config: { input: { pii: { action: "block" } } } },
      }),
    );
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ allowed: false, action: "block", blocked_by: ["pii"] });
    const unscanned = result.body.findings.find((f: { type: string }) => f.type === "unscanned");
    expect(unscanned).toMatchObject({ scanner: "pii", type: "unscanned", score: 1, end: text.length });
    expect(unscanned?.start).toBeLessThanOrEqual(SCAN_CAPS.pii);
    expectFast(times);
  }, 60_000);
});

describe("knowledge-base documents are read off the loop", () => {
  let g: GatewayTest;
  let collection: string;
  beforeAll(async () => {
    g = await startGatewayTest();
    // The 60 s reading deadline is not what these tests are about: on a CI machine running test files
    // side by side the worker's nice-10 thread gets a few percent of a core and reached it (a 400).
    // Within the test's own time-out, the 1.1 MB upload is read however loaded the machine is.
    g.o.t.app.knowledge.chunkDeadlineMs = 170_000;
    collection = await createCollection(g, "big");
  }, 30_000);
  afterAll(() => g.close(), 30_000);

  test("1.1 MB of Markdown with 60,000 headings: /health stays fast, and it is stored and chunked", async () => {
    let markdown = "";
    for (let i = 0; i < 61_000; i++) markdown += `# H${i}\n\nw${i}\n\n`;
    expect(markdown.length).toBeGreaterThan(1_000_000);
    const { result, ...times } = await healthBeside(g.url, () =>
      uploadFiles(g, collection, { "headings.md": markdown }),
    );
    expect(result.status).toBe(201);
    expect(result.body.stored).toBe(1);
    const [document] = result.body.documents;
    if (!document) throw new Error("the upload answered no document");
    const [row] = await g.o.t.app.db
      .select({ count: sql<number>`count(*)::int` })
      .from(knowledgeChunks)
      .where(eq(knowledgeChunks.documentId, document.id));
    expect(row?.count).toBeGreaterThan(60_000);
    expectFast(times);
  }, 180_000);

  test("HTML nested 20,000 deep is a 400 naming the file, not a 500", async () => {
    const html = `${"<div>".repeat(20_000)}deep${"</div>".repeat(20_000)}`;
    const res = await uploadFiles<ErrorBody>(g, collection, [
      new File([html], "deep.html", { type: "text/html" }),
    ]);
    expect(res.status).toBe(400);
    expect(res.body.error.details?.fields?.[0]?.field).toBe("files.0");
  }, 60_000);
});

describe("caps and deadlines", () => {
  const over = `${"a word ".repeat(Math.ceil(SCAN_CAPS.pii / 7))}jane@example.com`;

  test("past a scanner's cap, the unread tail is an unscanned finding its action decides", () => {
    const logged = evaluate(over, { input: { pii: { action: "log" } } });
    expect(logged).toMatchObject({ allowed: true, action: "log" });
    // The read part ends after the last space before the cap.
    const cut = over.lastIndexOf(" ", SCAN_CAPS.pii - 1) + 1;
    expect(logged.findings).toEqual([
      { scanner: "pii", type: "unscanned", score: 1, start: cut, end: over.length },
    ]);
    const redacted = evaluate(over, redactPii);
    expect(redacted.redacted === `${over.slice(0, cut)}[UNSCANNED]`).toBe(true);
    expect(evaluate(over, { input: { pii: { action: "block" } } }).blockedBy).toEqual(["pii"]);
    // Under its cap, toxicity read all of it and found nothing.
    expect(evaluate(over, { input: { toxicity: { action: "block" } } }).action).toBe("allow");
  });

  test("off the loop, a scan gives what evaluate gives; one past its deadline counts as unscanned", async () => {
    const text = "Mail jane.doe@example.com or call +44 20 7946 0958. ".repeat(200);
    expect(text.length).toBeGreaterThan(INLINE_SCAN_CHARS);
    expect(await evaluateOffLoop(text, redactPii)).toEqual(evaluate(text, redactPii));
    const late = await evaluateOffLoop(text, redactPii, "input", 0);
    expect(late).toMatchObject({ action: "redact", redacted: "[UNSCANNED]" });
    expect(late.findings).toEqual([
      { scanner: "pii", type: "unscanned", score: 1, start: 0, end: text.length },
    ]);
  });
});
