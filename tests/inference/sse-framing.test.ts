// SSE framing of what a replica streams, as the relay reads it: the three line ends the format allows
// (an upstream ending its lines in CR alone once relayed nothing and "ended early"), the one optional
// space after "data:", multi-line data, and comments used as keep-alives. Each upstream is cut into
// small pieces at every kind of boundary, CR and LF of a CRLF included.
import { describe, expect, test } from "bun:test";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { type RelayOutcome, relaySse } from "#adapters/upstream/sse-relay.ts";

const chunk = (content: string) => JSON.stringify({ id: "c", choices: [{ index: 0, delta: { content } }] });
const finish = JSON.stringify({ id: "c", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });

/** Relays `text` cut into `size`-character pieces; answers the relayed events and the outcome. */
async function relay(text: string, size = 3) {
  const encoder = new TextEncoder();
  let at = 0;
  const upstream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= text.length) return controller.close();
      controller.enqueue(encoder.encode(text.slice(at, at + size)));
      at += size;
    },
  });
  let outcome: RelayOutcome | undefined;
  const relayed = await new Response(
    relaySse(upstream, { includeUsage: false, onEnd: (o) => (outcome = o) }),
  ).text();
  // The client's view, through a conforming parser.
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => events.push(e) });
  parser.feed(relayed);
  return { events, outcome: outcome as RelayOutcome, relayed };
}

const stream = (eol: string) =>
  [
    `data: ${chunk("Hel")}`,
    "",
    `data: ${chunk("lo")}`,
    "",
    `data: ${finish}`,
    "",
    "data: [DONE]",
    "",
    "",
  ].join(eol);

describe("line ends", () => {
  for (const [name, eol] of [
    ["LF", "\n"],
    ["CRLF", "\r\n"],
    ["CR only", "\r"],
  ] as const) {
    test(`${name}: every chunk relayed, the answer complete`, async () => {
      for (const size of [1, 2, 3, 7, 1000]) {
        const { events, outcome } = await relay(stream(eol), size);
        expect(outcome.content).toBe("Hello");
        expect(outcome.finishReason).toBe("stop");
        expect(outcome.error).toBeUndefined();
        expect(events.map((e) => e.data).at(-1)).toBe("[DONE]");
        expect(events).toHaveLength(4);
      }
    });
  }
});

test("one space after the colon is part of the syntax, a second one is part of the value", async () => {
  const { events, outcome } = await relay(`data:  hello\n\ndata:${chunk("x")}\n\ndata:  [DONE]\n\n`);
  expect(events[0]?.data).toBe(" hello");
  expect(outcome.content).toBe("x");
  // " [DONE]" is not the end marker (the openai SDK compares the value exactly, too).
  expect(outcome.error).toBe("the model's server ended the answer early");
});

test("multi-line data is joined with newlines; a provider's non-JSON event passes through whole", async () => {
  const text = `event: notice\ndata: first line\ndata:second line\n\ndata: {"id":"c","choices":\ndata: [{"index":0,"delta":{"content":"ok"}}]}\n\ndata: [DONE]\n\n`;
  const { events, outcome } = await relay(text);
  expect(events[0]).toMatchObject({ event: "notice", data: "first line\nsecond line" });
  expect(outcome.content).toBe("ok");
  expect(outcome.error).toBeUndefined();
});

test("comments (keep-alives) and fields other than data are not relayed and break nothing", async () => {
  const text = `: keep-alive\n\n:ping\r\nretry: 1000\r\nid: 7\r\ndata: ${chunk("a")}\r\n\r\n: ${"x".repeat(50)}\n\ndata: [DONE]\n\n`;
  const { relayed, outcome } = await relay(text);
  expect(outcome.content).toBe("a");
  expect(outcome.error).toBeUndefined();
  expect(relayed).not.toContain("keep-alive");
  expect(relayed).not.toContain("ping");
  expect(relayed).not.toContain("retry");
});

test("an event not closed by a blank line at the end of the stream still counts", async () => {
  const { outcome } = await relay(`data: ${chunk("end")}\n\ndata: [DONE]`);
  expect(outcome.content).toBe("end");
  expect(outcome.error).toBeUndefined();
});
