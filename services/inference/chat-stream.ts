// What the translators around the chat core (completions, responses) read from its stream and write
// to theirs. The core's stream is our own relay's output (adapters/upstream/sse-relay.ts): one
// `data: <json>` line per event, then `data: [DONE]`, or an error event `{error}` and nothing more.
import type { ReceivedChunk } from "#contracts/openai/chat.ts";
import type { ReceivedErrorDetail } from "#contracts/openai/error.ts";

export interface StreamTranslator {
  /** SSE text to send before anything else. */
  start(): string;
  chunk(chunk: ReceivedChunk): string;
  /** The chat stream failed (upstream broke, a guardrail blocked it): the last words. */
  error(error: ReceivedErrorDetail): string;
  /** The chat stream ended with [DONE]. */
  end(): Promise<string>;
}

const encoder = new TextEncoder();

export const sseData = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;

/** An event's JSON payload; undefined for what is not JSON (the relay passes such events on as they were). */
function dataOf(event: string): (ReceivedChunk & { error?: ReceivedErrorDetail }) | "[DONE]" | undefined {
  const data = event
    .split("\n")
    .filter((line) => line.startsWith("data:"))
    .map((line) => line.slice(5).trimStart())
    .join("\n");
  if (data === "[DONE]") return data;
  try {
    return JSON.parse(data) as ReceivedChunk & { error?: ReceivedErrorDetail };
  } catch {
    return undefined;
  }
}

/**
 * The chat core's stream, translated event by event. Pull-driven like the relay, so the client's pace
 * still sets the model's; cancelling it cancels the chat stream (and so the upstream request).
 */
export function translateChatStream(
  source: ReadableStream<Uint8Array>,
  translator: StreamTranslator,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let started = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let out = "";
      if (!started) {
        started = true;
        out += translator.start();
      }
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          controller.enqueue(encoder.encode(out));
          controller.close();
          return;
        }
        buffer += decoder.decode(value, { stream: true });
        let boundary = buffer.indexOf("\n\n");
        while (boundary >= 0) {
          const data = dataOf(buffer.slice(0, boundary));
          buffer = buffer.slice(boundary + 2);
          boundary = buffer.indexOf("\n\n");
          if (data === "[DONE]") out += await translator.end();
          else if (data !== undefined) {
            out += data.error ? translator.error(data.error) : translator.chunk(data);
          }
        }
        if (out !== "") {
          controller.enqueue(encoder.encode(out));
          return;
        }
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
