// What the Anthropic and Gemini adapters share on OpenAI's side: the request and answer types (derived
// from the inference gateway's own TypeBox contracts, not written again), OpenAI's error body, the SSE
// framing of a translated stream, and the refusal a request gets for what an upstream cannot do.
import type { Static } from "@sinclair/typebox";
import { EventSourceParserStream } from "eventsource-parser/stream";
import type {
  ChatCompletionChunk,
  ChatCompletionRequest,
  ChatCompletionResponse,
  ChatMessage,
} from "#routes/inference/v1/_schemas/chat.ts";
import type { EmbeddingsRequest, EmbeddingsResponse } from "#routes/inference/v1/_schemas/embeddings.ts";

export type ChatRequest = Static<typeof ChatCompletionRequest>;
export type ChatRequestMessage = Static<typeof ChatMessage>;
export type ChatCompletion = Static<typeof ChatCompletionResponse>;
export type ChatChunk = Static<typeof ChatCompletionChunk>;
export type ChatUsage = ChatCompletion["usage"];
export type FinishReason = ChatCompletion["choices"][number]["finish_reason"];
export type ToolCall = NonNullable<ChatCompletion["choices"][number]["message"]["tool_calls"]>[number];
export type ToolCallDelta = NonNullable<ChatChunk["choices"][number]["delta"]["tool_calls"]>[number];
export type EmbeddingsBody = Static<typeof EmbeddingsRequest>;
export type EmbeddingList = Static<typeof EmbeddingsResponse>;

/**
 * POST /v1/completions as the adapters read it: the chat request's sampling fields with a `prompt`
 * instead of `messages` (the gateway's own completions contract lives in services/, which adapters do
 * not import; only the field that differs is named here).
 */
export type CompletionBody = Omit<ChatRequest, "messages"> & { prompt: string | string[] };

/** OpenAI's legacy text completion, the answer to /v1/completions. */
export interface TextCompletion {
  id: string;
  object: "text_completion";
  created: number;
  model: string;
  choices: { index: number; text: string; logprobs: null; finish_reason: FinishReason }[];
  usage?: ChatUsage | undefined;
}

export interface OpenAiError {
  error: { message: string; type: string; param: string | null; code: string | null };
}

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
  const body: OpenAiError = { error: { message, type: errorTypeOf(status), param, code } };
  return Response.json(body, { status });
}

/**
 * A request the upstream cannot serve, refused before anything is sent (request() has no answer to
 * return, so it throws this): `status` and `body` are what the caller should get, OpenAI-shaped.
 */
export class WireRefusal extends Error {
  readonly status = 400;
  readonly body: OpenAiError;
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

export function usageOf(prompt: number, completion: number, cached: number): ChatUsage {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cached },
  };
}

/** The text of an OpenAI message's content: a string, or its text parts joined. */
export function textOf(content: ChatRequestMessage["content"]): string {
  if (typeof content === "string") return content;
  if (!content) return "";
  return content
    .map((part) => part.text ?? "")
    .filter((text) => text !== "")
    .join("\n");
}

/** `stop` as a list (OpenAI takes one string or up to four). */
export function stopsOf(stop: ChatRequest["stop"]): string[] | undefined {
  if (stop === undefined) return undefined;
  return typeof stop === "string" ? [stop] : stop;
}

/** A completions request as the chat request it amounts to: its prompt as the one user message. */
export function chatOfCompletion(body: CompletionBody): ChatRequest {
  const { prompt, ...rest } = body;
  const text = typeof prompt === "string" ? prompt : prompt.join("");
  return { ...rest, messages: [{ role: "user", content: text }] };
}

/** A chat completion's answer as a text completion's. */
export function completionOfChat(chat: ChatCompletion): TextCompletion {
  return {
    id: chat.id.replace(/^chatcmpl-/, "cmpl-"),
    object: "text_completion",
    created: chat.created,
    model: chat.model,
    choices: chat.choices.map((choice) => ({
      index: choice.index,
      text: choice.message.content ?? "",
      logprobs: null,
      finish_reason: choice.finish_reason,
    })),
    usage: chat.usage,
  };
}

/** A chat chunk as a text completion chunk (tool calls cannot occur: completions send no tools). */
export function completionChunkOf(chunk: ChatChunk): TextCompletion {
  return {
    id: chunk.id.replace(/^chatcmpl-/, "cmpl-"),
    object: "text_completion",
    created: chunk.created,
    model: chunk.model,
    choices: chunk.choices.map((choice) => ({
      index: choice.index,
      text: choice.delta.content ?? "",
      logprobs: null,
      finish_reason: choice.finish_reason,
    })),
    ...(chunk.usage ? { usage: chunk.usage } : {}),
  };
}

const encoder = new TextEncoder();
const sseData = (data: unknown) => encoder.encode(`data: ${JSON.stringify(data)}\n\n`);

/** What a translator does with one upstream event: the chunks to send, and whether the stream failed. */
export interface StreamTranslator {
  /** One upstream SSE event (its `event:` name, its data) to the OpenAI chunks it becomes. */
  onEvent(event: string | undefined, data: string): ChatChunk[] | OpenAiError;
  /** The upstream ended: the last chunks (the usage chunk), or an error when it ended too early. */
  onEnd(): ChatChunk[] | OpenAiError;
}

/**
 * An upstream SSE body re-framed as OpenAI's: `data: {chunk}` events, `data: [DONE]` at a proper end, or
 * an error event (OpenAI's error body) and no `[DONE]` when the upstream failed in the middle, so the
 * gateway's relay reports the stream as broken rather than complete. SSE parsing is eventsource-parser's.
 */
export function translateStream(
  upstream: NonNullable<Response["body"]>,
  translator: StreamTranslator,
  asCompletion: boolean,
): ReadableStream<Uint8Array> {
  const frame = (chunk: ChatChunk) => sseData(asCompletion ? completionChunkOf(chunk) : chunk);
  let failed = false;
  const emit = (controller: TransformStreamDefaultController<Uint8Array>, out: ChatChunk[] | OpenAiError) => {
    if (failed) return;
    if (Array.isArray(out)) {
      for (const chunk of out) controller.enqueue(frame(chunk));
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
