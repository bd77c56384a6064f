// Passes an upstream SSE stream to the client event by event, as each event completes (nothing is held
// beyond the end of its own event). Along the way it notes usage and the generated text for logging and
// rate-limit correction, drops the usage chunk the client did not ask for, and turns an upstream that
// dies or stops early into an error event followed by the end of the stream, never a hang.

import type { ReceivedChunk, Usage } from "#contracts/openai/chat.ts";

/** The prompt tokens the engine says it reused, within 0..prompt_tokens (an engine's slip is not a cost). */
export function cachedTokensOf(usage: Usage): number {
  const cached = usage.prompt_tokens_details?.cached_tokens;
  if (typeof cached !== "number" || !Number.isFinite(cached) || cached <= 0) return 0;
  return Math.min(Math.floor(cached), Math.max(0, usage.prompt_tokens));
}

export interface RelayOutcome {
  usage: Usage | undefined;
  /** The assistant text streamed, for output checks and for counting when the model gives no usage. */
  content: string;
  finishReason: string | undefined;
  /** Set when the stream did not end with [DONE]. */
  error: string | undefined;
  /** The client went away before the end. */
  cancelled: boolean;
}

export interface RelayOptions {
  /** The client asked for stream_options.include_usage. */
  includeUsage: boolean;
  /** Called once, when the stream ends for whatever reason. */
  onEnd(outcome: RelayOutcome): void;
  /** May rewrite each chunk's JSON before it is sent (or return undefined to drop it). */
  mapChunk?(chunk: ReceivedChunk): ReceivedChunk | undefined;
}

/** A chunk as read from the model's server (contracts/openai/chat.ts). */

import { createParser, type EventSourceMessage } from "eventsource-parser";

const encoder = new TextEncoder();
const done = encoder.encode("data: [DONE]\n\n");

export function errorEvent(message: string, code = "upstream_error"): Uint8Array {
  return encoder.encode(
    `data: ${JSON.stringify({ error: { message, type: "server_error", param: null, code } })}\n\n`,
  );
}

export function relaySse(
  upstream: ReadableStream<Uint8Array>,
  options: RelayOptions,
): ReadableStream<Uint8Array> {
  const reader = upstream.getReader();
  const decoder = new TextDecoder();
  const outcome: RelayOutcome = {
    usage: undefined,
    content: "",
    finishReason: undefined,
    error: undefined,
    cancelled: false,
  };
  let sawDone = false;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    options.onEnd(outcome);
  };

  // Events parsed from the upstream bytes fed so far, in order, waiting to be relayed.
  let out: Uint8Array[] = [];
  let failure: { error: unknown } | undefined;
  const handleEvent = (event: EventSourceMessage) => {
    const { data } = event;
    if (data === "") return;
    if (data === "[DONE]") {
      sawDone = true;
      return;
    }
    let chunk: ReceivedChunk;
    try {
      chunk = JSON.parse(data) as ReceivedChunk;
    } catch {
      // Not JSON (a provider's own event): passed on as it came, line by line.
      const named = event.event ? `event: ${event.event}\n` : "";
      out.push(encoder.encode(`${named}data: ${data.replaceAll("\n", "\ndata: ")}\n\n`));
      return;
    }
    if (chunk.usage) outcome.usage = chunk.usage;
    for (const choice of chunk.choices ?? []) {
      if (choice.delta?.content) outcome.content += choice.delta.content;
      if (choice.finish_reason) outcome.finishReason = choice.finish_reason;
    }
    const usageOnly = (chunk.choices?.length ?? 0) === 0 && chunk.usage;
    if (usageOnly && !options.includeUsage) return;
    if (!options.includeUsage && chunk.usage) chunk.usage = undefined;
    const mapped = options.mapChunk ? options.mapChunk(chunk) : chunk;
    if (mapped) out.push(encoder.encode(`data: ${JSON.stringify(mapped)}\n\n`));
  };
  // SSE framing (CR, LF or CRLF line ends, one optional space after the colon, comments, multi-line
  // data) is eventsource-parser's; keep-alive comments are not relayed.
  const parser = createParser({
    onEvent(event) {
      if (failure) return;
      try {
        handleEvent(event);
      } catch (error) {
        failure = { error };
      }
    },
  });
  const take = () => {
    const taken = out;
    out = [];
    return taken;
  };

  /** mapChunk may throw to stop the stream (a guardrail blocked it): the client gets an error event. */
  const stop = async (controller: ReadableStreamDefaultController<Uint8Array>, error: unknown) => {
    for (const piece of take()) controller.enqueue(piece);
    const code = (error as { openaiCode?: string }).openaiCode ?? "content_policy_violation";
    outcome.error = error instanceof Error ? error.message : String(error);
    controller.enqueue(errorEvent(outcome.error, code));
    controller.close();
    end();
    await reader.cancel(outcome.error).catch(() => {});
  };

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      // Pull-driven: we read upstream only as fast as the client takes, so a slow client slows the model
      // instead of filling our memory.
      for (;;) {
        let result: Awaited<ReturnType<typeof reader.read>>;
        try {
          result = await reader.read();
        } catch {
          outcome.error = "the model's server stopped in the middle of the answer";
          controller.enqueue(errorEvent(outcome.error));
          controller.close();
          end();
          return;
        }
        if (result.done) {
          // An event the upstream did not end with a blank line still counts: end its line and the event.
          parser.feed(`${decoder.decode()}\n\n`);
          if (failure) return stop(controller, failure.error);
          for (const piece of take()) controller.enqueue(piece);
          if (sawDone) controller.enqueue(done);
          else {
            outcome.error = "the model's server ended the answer early";
            controller.enqueue(errorEvent(outcome.error));
          }
          controller.close();
          end();
          return;
        }
        parser.feed(decoder.decode(result.value, { stream: true }));
        if (failure) return stop(controller, failure.error);
        if (out.length > 0) {
          for (const piece of take()) controller.enqueue(piece);
          return;
        }
      }
    },
    async cancel(reason) {
      outcome.cancelled = true;
      end();
      await reader.cancel(reason).catch(() => {});
    },
  });
}
