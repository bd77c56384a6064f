// The upstream half of the inference path, against real HTTP servers on loopback standing in for
// model replicas: balancing, retry, time-outs, cancellation and broken streams.
import { afterAll, expect, test } from "bun:test";
import type { Server } from "bun";
import { InFlightBalancer } from "#adapters/upstream/balancer.ts";
import { sendUpstream } from "#adapters/upstream/send.ts";
import { type RelayOutcome, relaySse } from "#adapters/upstream/sse-relay.ts";
import { AppError } from "#core/errors.ts";
import { simulateDelay, within } from "../support/wait.ts";

const servers: Server<unknown>[] = [];
afterAll(() => {
  for (const s of servers) s.stop(true);
});

function stub(handler: (req: Request) => Response | Promise<Response>): string {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", idleTimeout: 0, fetch: handler });
  servers.push(server);
  return `http://127.0.0.1:${server.port}`;
}

const chunk = (content: string) =>
  `data: ${JSON.stringify({ id: "c", choices: [{ index: 0, delta: { content } }] })}\n\n`;
const finish = `data: ${JSON.stringify({ id: "c", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`;
const usage = `data: ${JSON.stringify({ id: "c", choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } })}\n\n`;

function sse(parts: string[], gapMs = 0, dieAfter?: number): Response {
  const encoder = new TextEncoder();
  return new Response(
    new ReadableStream({
      async start(controller) {
        for (let i = 0; i < parts.length; i++) {
          if (dieAfter !== undefined && i === dieAfter) {
            controller.error(new Error("replica crashed"));
            return;
          }
          controller.enqueue(encoder.encode(parts[i] as string));
          if (gapMs) await simulateDelay(gapMs);
        }
        controller.close();
      },
    }),
    { headers: { "content-type": "text/event-stream" } },
  );
}

const base = { path: "/v1/chat/completions", body: "{}", connectTimeoutMs: 1000, firstByteTimeoutMs: 2000 };

test("requests go to the replica with the fewest in flight", async () => {
  const hits: Record<string, number> = { a: 0, b: 0 };
  const slow = (name: string) =>
    stub(async () => {
      hits[name] = (hits[name] ?? 0) + 1;
      await simulateDelay(50);
      return Response.json({ ok: name });
    });
  const endpoints = [slow("a"), slow("b")];
  const balancer = new InFlightBalancer();
  const results = await Promise.all(
    Array.from({ length: 20 }, async () => {
      const up = await sendUpstream(balancer, { ...base, endpoints, signal: new AbortController().signal });
      const body = await up.response.json();
      up.release();
      return body;
    }),
  );
  expect(results).toHaveLength(20);
  expect(hits.a).toBe(10);
  expect(hits.b).toBe(10);
  expect(balancer.inFlight(endpoints[0] as string)).toBe(0);
});

test("a replica that refuses the connection is retried once on another", async () => {
  const dead = "http://127.0.0.1:9"; // discard port: nothing listens
  const live = stub(() => Response.json({ ok: true }));
  const balancer = new InFlightBalancer();
  for (let i = 0; i < 4; i++) {
    const up = await sendUpstream(balancer, {
      ...base,
      endpoints: [dead, live],
      signal: new AbortController().signal,
    });
    expect(up.endpoint).toBe(live);
    up.release();
  }
});

test("no reachable replica is 502 upstream_error", async () => {
  const attempt = sendUpstream(new InFlightBalancer(), {
    ...base,
    endpoints: ["http://127.0.0.1:9"],
    signal: new AbortController().signal,
  });
  await expect(attempt).rejects.toMatchObject({ code: "upstream_error" });
});

test("a replica that accepts but never answers is 504 upstream_timeout after the first-byte deadline", async () => {
  const silent = stub(async () => {
    await simulateDelay(5000);
    return new Response("late");
  });
  const started = Date.now();
  let caught: unknown;
  try {
    await sendUpstream(new InFlightBalancer(), {
      ...base,
      firstByteTimeoutMs: 300,
      endpoints: [silent],
      signal: new AbortController().signal,
    });
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(AppError);
  expect((caught as AppError).code).toBe("upstream_timeout");
  expect(Date.now() - started).toBeLessThan(2000);
});

test("the client going away aborts the upstream request", async () => {
  let upstreamAborted = false;
  const aborted = Promise.withResolvers<void>();
  const streaming = stub(
    (req) =>
      new Response(
        new ReadableStream({
          async start(controller) {
            req.signal.addEventListener("abort", () => {
              upstreamAborted = true;
              aborted.resolve();
            });
            for (let i = 0; i < 100 && !req.signal.aborted; i++) {
              controller.enqueue(new TextEncoder().encode(chunk(`t${i} `)));
              await simulateDelay(20);
            }
            controller.close();
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      ),
  );
  const client = new AbortController();
  const up = await sendUpstream(new InFlightBalancer(), {
    ...base,
    endpoints: [streaming],
    signal: client.signal,
  });
  const reader = relaySse(up.response.body as ReadableStream<Uint8Array>, {
    includeUsage: false,
    onEnd: () => up.release(),
  }).getReader();
  await reader.read();
  client.abort();
  await reader.cancel();
  await within(aborted.promise, 1000, "the upstream request aborted");
  expect(upstreamAborted).toBe(true);
});

async function relayAll(response: Response, includeUsage: boolean) {
  let outcome: RelayOutcome | undefined;
  const text = await new Response(
    relaySse(response.body as ReadableStream<Uint8Array>, { includeUsage, onEnd: (o) => (outcome = o) }),
  ).text();
  return { text, outcome: outcome as RelayOutcome };
}

test("chunks pass through with the upstream's spacing, and usage is noted", async () => {
  const endpoint = stub(() => sse([chunk("Hel"), chunk("lo"), finish, usage, "data: [DONE]\n\n"], 100));
  const up = await sendUpstream(new InFlightBalancer(), {
    ...base,
    endpoints: [endpoint],
    signal: new AbortController().signal,
  });
  const reader = relaySse(up.response.body as ReadableStream<Uint8Array>, {
    includeUsage: true,
    onEnd: () => {},
  }).getReader();
  const arrivals: number[] = [];
  const decoder = new TextDecoder();
  let all = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    arrivals.push(Date.now());
    all += decoder.decode(value);
  }
  expect(all).toContain('"content":"Hel"');
  expect(all).toContain('"total_tokens":7');
  expect(all.trimEnd().endsWith("data: [DONE]")).toBe(true);
  // Not buffered: the first chunk arrived well before the last.
  expect((arrivals.at(-1) as number) - (arrivals[0] as number)).toBeGreaterThan(250);
});

test("the usage chunk is dropped when the client did not ask for it, but still counted", async () => {
  const endpoint = stub(() => sse([chunk("Hi"), finish, usage, "data: [DONE]\n\n"]));
  const up = await sendUpstream(new InFlightBalancer(), {
    ...base,
    endpoints: [endpoint],
    signal: new AbortController().signal,
  });
  const { text, outcome } = await relayAll(up.response, false);
  expect(text).not.toContain("usage");
  expect(outcome.usage).toEqual({ prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 });
  expect(outcome.content).toBe("Hi");
  expect(outcome.finishReason).toBe("stop");
});

test("an upstream that dies mid-stream ends the client's stream with an error event, not a hang", async () => {
  const endpoint = stub(() => sse([chunk("par"), chunk("tial"), finish, "data: [DONE]\n\n"], 20, 2));
  const up = await sendUpstream(new InFlightBalancer(), {
    ...base,
    endpoints: [endpoint],
    signal: new AbortController().signal,
  });
  const { text, outcome } = await relayAll(up.response, false);
  expect(text).toContain('"content":"par"');
  expect(text).toContain('"code":"upstream_error"');
  expect(text).not.toContain("[DONE]");
  expect(outcome.error).toBeDefined();
});

test("events split across network chunks are reassembled before they are passed on", async () => {
  const whole = `${chunk("split")}${finish}data: [DONE]\n\n`;
  const pieces = [whole.slice(0, 7), whole.slice(7, 30), whole.slice(30)];
  const endpoint = stub(() => sse(pieces, 10));
  const up = await sendUpstream(new InFlightBalancer(), {
    ...base,
    endpoints: [endpoint],
    signal: new AbortController().signal,
  });
  const { outcome } = await relayAll(up.response, false);
  expect(outcome.content).toBe("split");
  expect(outcome.error).toBeUndefined();
});
