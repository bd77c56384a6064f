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
  const relay = new SseRelay(upstream.getReader(), options);
  return new ReadableStream<Uint8Array>({
    // Pull-driven: we read upstream only as fast as the client takes, so a slow client slows the model
    // instead of filling our memory.
    pull: (controller) => relay.pull(controller),
    cancel: (reason) => relay.cancel(reason),
  });
}

type Controller = ReadableStreamDefaultController<Uint8Array>;

/** One stream's relay: the upstream's reader, the events parsed and waiting, and what the outcome says. */
class SseRelay {
  private readonly decoder = new TextDecoder();
  readonly outcome: RelayOutcome = {
    usage: undefined,
    content: "",
    finishReason: undefined,
    error: undefined,
    cancelled: false,
  };
  private sawDone = false;
  private ended = false;
  /** Events parsed from the upstream bytes fed so far, in order, waiting to be relayed. */
  private out: Uint8Array[] = [];
  private failure: { error: unknown } | undefined;
  // SSE framing (CR, LF or CRLF line ends, one optional space after the colon, comments, multi-line
  // data) is eventsource-parser's; keep-alive comments are not relayed.
  private readonly parser = createParser({
    onEvent: (event) => {
      if (this.failure) return;
      try {
        this.handleEvent(event);
      } catch (error) {
        this.failure = { error };
      }
    },
  });

  constructor(
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    private readonly options: RelayOptions,
  ) {}

  async pull(controller: Controller): Promise<void> {
    for (;;) {
      let result: Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]>>;
      try {
        result = await this.reader.read();
      } catch {
        return this.fail(controller, "the model's server stopped in the middle of the answer");
      }
      if (result.done) return this.finish(controller);
      this.parser.feed(this.decoder.decode(result.value, { stream: true }));
      if (this.failure) return this.stop(controller, this.failure.error);
      if (this.out.length > 0) {
        this.flush(controller);
        return;
      }
    }
  }

  async cancel(reason: unknown): Promise<void> {
    this.outcome.cancelled = true;
    this.end();
    await this.reader.cancel(reason).catch(() => {});
  }

  private handleEvent(event: EventSourceMessage): void {
    const { data } = event;
    if (data === "") return;
    if (data === "[DONE]") {
      this.sawDone = true;
      return;
    }
    let chunk: ReceivedChunk;
    try {
      chunk = JSON.parse(data);
    } catch {
      // Not JSON (a provider's own event): passed on as it came, line by line.
      const named = event.event ? `event: ${event.event}\n` : "";
      this.out.push(encoder.encode(`${named}data: ${data.replaceAll("\n", "\ndata: ")}\n\n`));
      return;
    }
    const { outcome, options } = this;
    if (chunk.usage) outcome.usage = chunk.usage;
    for (const choice of chunk.choices ?? []) {
      if (choice.delta?.content) outcome.content += choice.delta.content;
      if (choice.finish_reason) outcome.finishReason = choice.finish_reason;
    }
    const usageOnly = (chunk.choices?.length ?? 0) === 0 && chunk.usage;
    if (usageOnly && !options.includeUsage) return;
    if (!options.includeUsage && chunk.usage) chunk.usage = undefined;
    const mapped = options.mapChunk ? options.mapChunk(chunk) : chunk;
    if (mapped) this.out.push(encoder.encode(`data: ${JSON.stringify(mapped)}\n\n`));
  }

  /** The upstream's end: the last event, then [DONE] or, when it never came, an error event. */
  private async finish(controller: Controller): Promise<void> {
    // An event the upstream did not end with a blank line still counts: end its line and the event.
    this.parser.feed(`${this.decoder.decode()}\n\n`);
    if (this.failure) return this.stop(controller, this.failure.error);
    this.flush(controller);
    if (!this.sawDone) return this.fail(controller, "the model's server ended the answer early");
    controller.enqueue(done);
    controller.close();
    this.end();
  }

  private fail(controller: Controller, message: string): void {
    this.outcome.error = message;
    controller.enqueue(errorEvent(message));
    controller.close();
    this.end();
  }

  /** mapChunk may throw to stop the stream (a guardrail blocked it): the client gets an error event. */
  private async stop(controller: Controller, error: unknown): Promise<void> {
    this.flush(controller);
    const code = openaiCodeOf(error) ?? "content_policy_violation";
    const message = error instanceof Error ? error.message : String(error);
    this.outcome.error = message;
    controller.enqueue(errorEvent(message, code));
    controller.close();
    this.end();
    await this.reader.cancel(message).catch(() => {});
  }

  private flush(controller: Controller): void {
    const taken = this.out;
    this.out = [];
    for (const piece of taken) controller.enqueue(piece);
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.options.onEnd(this.outcome);
  }
}

/** The OpenAI error code an error names for the client's error event (a guardrail's refusal). */
function openaiCodeOf(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("openaiCode" in error)) return undefined;
  return typeof error.openaiCode === "string" ? error.openaiCode : undefined;
}
