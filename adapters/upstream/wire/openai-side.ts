// What the Anthropic and Gemini adapters share on OpenAI's side: the request and answer types (the
// contracts in contracts/openai/, not written again), OpenAI's error body, the SSE
// framing of a translated stream, and the refusal a request gets for what an upstream cannot do.
import { EventSourceParserStream } from "eventsource-parser/stream";
import type {
  ChatCompletionChunk,
  ChatCompletionRequest,
  ChatMessage,
  Usage,
} from "#contracts/openai/chat.ts";
import type { OpenAIError } from "#contracts/openai/error.ts";

/** OpenAI's error `type` for an HTTP status (what its SDKs and the gateway's refusal reader expect). */
export function errorTypeOf(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

export function errorResponse(
  status: number,
  message: string,
  code: string | null,
  param: string | null = null,
) {
  const body: OpenAIError = { error: { message, type: errorTypeOf(status), param, code } };
  return Response.json(body, { status });
}

/**
 * A request the upstream cannot serve, refused before anything is sent (request() has no answer to
 * return, so it throws this): `status` and `body` are what the caller should get, OpenAI-shaped.
 */
export class WireRefusal extends Error {
  readonly status = 400;
  readonly body: OpenAIError;
  constructor(message: string, param: string | null, code = "unsupported_parameter") {
    super(message);
    this.name = "WireRefusal";
    this.body = { error: { message, type: "invalid_request_error", param, code } };
  }
}

/** The endpoint as configured, without a trailing slash or an API version a user may have pasted. */
export function baseUrlOf(endpoint: string, versions: readonly string[]): string {
  let base = endpoint.trim().replace(/\/+$/, "");
  for (const version of versions) {
    if (base.endsWith(`/${version}`)) base = base.slice(0, -version.length - 1);
  }
  return base;
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

export function usageOf(prompt: number, completion: number, cached: number): Usage {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cached },
  };
}

/** The text of an OpenAI message's content: a string, or its text parts joined. */
export function textOf(content: ChatMessage["content"]): string {
  if (typeof content === "string") return content;
  if (!content) return "";
  return content
    .map((part) => part.text ?? "")
    .filter((text) => text !== "")
    .join("\n");
}

/** `stop` as a list (OpenAI takes one string or up to four). */
export function stopsOf(stop: ChatCompletionRequest["stop"]): string[] | undefined {
  if (stop === undefined) return undefined;
  return typeof stop === "string" ? [stop] : stop;
}

const encoder = new TextEncoder();
const sseData = (data: unknown) => encoder.encode(`data: ${JSON.stringify(data)}\n\n`);

/** What a translator does with one upstream event: the chunks to send, and whether the stream failed. */
export interface StreamTranslator {
  /** One upstream SSE event (its `event:` name, its data) to the OpenAI chunks it becomes. */
  onEvent(event: string | undefined, data: string): ChatCompletionChunk[] | OpenAIError;
  /** The upstream ended: the last chunks (the usage chunk), or an error when it ended too early. */
  onEnd(): ChatCompletionChunk[] | OpenAIError;
}

/**
 * An upstream SSE body re-framed as OpenAI's: `data: {chunk}` events, `data: [DONE]` at a proper end, or
 * an error event (OpenAI's error body) and no `[DONE]` when the upstream failed in the middle, so the
 * gateway's relay reports the stream as broken rather than complete. SSE parsing is eventsource-parser's.
 */
export function translateStream(
  upstream: NonNullable<Response["body"]>,
  translator: StreamTranslator,
): ReadableStream<Uint8Array> {
  let failed = false;
  const emit = (
    controller: TransformStreamDefaultController<Uint8Array>,
    out: ChatCompletionChunk[] | OpenAIError,
  ) => {
    if (failed) return;
    if (Array.isArray(out)) {
      for (const chunk of out) controller.enqueue(sseData(chunk));
      return;
    }
    failed = true;
    controller.enqueue(sseData(out));
  };
  return upstream
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .pipeThrough(
      new TransformStream({
        transform(event, controller) {
          emit(controller, translator.onEvent(event.event, event.data));
        },
        flush(controller) {
          emit(controller, translator.onEnd());
          if (!failed) controller.enqueue(encoder.encode("data: [DONE]\n\n"));
        },
      }),
    );
}

export function sseResponse(stream: ReadableStream<Uint8Array>): Response {
  return new Response(stream, {
    status: 200,
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

/** Reads an upstream's JSON body; undefined when it is not JSON. */
export async function jsonOf(response: Response): Promise<unknown> {
  const text = await response.text().catch(() => "");
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A 2xx whose body is not what the upstream's API documents: the upstream failing, 502. */
export function malformed(upstream: string, what: string): Response {
  return errorResponse(502, `${upstream} answered ${what} that does not follow its API`, "upstream_error");
}

export const newCallId = () => `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
