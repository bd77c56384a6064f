// What the Anthropic and Gemini adapters share on OpenAI's side: the request and answer types (the
// contracts in contracts/openai/, not written again), OpenAI's error body, the SSE
// framing of a translated stream, and the refusal a request gets for what an upstream cannot do.
import { EventSourceParserStream } from "eventsource-parser/stream";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionRequest,
  ChatMessage,
  FinishReason,
  ToolCall,
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

/** `image_url` parts carry `{url}` (OpenAI's shape); open in the contract, so read it with care. */
export function imageUrlOf(part: { [key: string]: unknown }): string | undefined {
  const image = part.image_url;
  if (typeof image !== "object" || image === null || !("url" in image)) return undefined;
  return typeof image.url === "string" ? image.url : undefined;
}

/** The error event a translated stream ends with when the upstream's stream breaks its API. */
export const streamError = (message: string): OpenAIError => ({
  error: { message, type: "server_error", param: null, code: "upstream_error" },
});

/** One upstream SSE event's data parsed, or the stream error it ends the stream with when it is not JSON. */
export function eventDataOf(upstream: string, data: string): { parsed: unknown } | { error: OpenAIError } {
  try {
    return { parsed: JSON.parse(data) };
  } catch {
    return { error: streamError(`${upstream} sent an event that is not JSON`) };
  }
}

/** What every upstream's answer says of its one choice, to write as OpenAI's chat completion. */
export interface Answer {
  id: string;
  model: string;
  text: string;
  toolCalls: ToolCall[];
  finish: FinishReason;
  usage: Usage;
}

/** An upstream's answer as OpenAI's chat completion of one choice (content null when only tools were called). */
export function chatCompletionFrom(answer: Answer): ChatCompletion {
  const { text, toolCalls } = answer;
  return {
    id: answer.id,
    object: "chat.completion",
    created: nowSeconds(),
    model: answer.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: text === "" && toolCalls.length > 0 ? null : text,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: answer.finish,
      },
    ],
    usage: answer.usage,
  };
}

/** A translated stream's chunk of one choice, under the stream's id, creation time and model. */
export function chunkOf(
  stream: { id: string; created: number; model: string },
  delta: ChatCompletionChunk["choices"][number]["delta"],
  finish: FinishReason = null,
): ChatCompletionChunk {
  return {
    id: stream.id,
    object: "chat.completion.chunk",
    created: stream.created,
    model: stream.model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
}

/** The refusals of what neither Anthropic nor Gemini can do, each in the upstream's own words. */
export interface OneChoiceRefusals {
  n: string;
  logprobs: string;
  logit_bias: string;
}

/** Refuses several choices, log probabilities and logit_bias, which the upstream cannot give. */
export function refuseBeyondOneChoice(body: ChatCompletionRequest, refusals: OneChoiceRefusals): void {
  if (body.n !== undefined && body.n !== 1) throw new WireRefusal(refusals.n, "n");
  if (body.logprobs) throw new WireRefusal(refusals.logprobs, "logprobs");
  if (body.logit_bias && Object.keys(body.logit_bias).length > 0) {
    throw new WireRefusal(refusals.logit_bias, "logit_bias");
  }
}

/** A turn of an upstream's conversation: its role and its pieces (Anthropic's blocks, Gemini's parts). */
export interface Turn<Role extends string, Piece> {
  role: Role;
  pieces: Piece[];
}

/**
 * OpenAI's messages as an upstream's alternating turns: system and developer messages join into the
 * system text; every other message becomes the turn `turnOf` makes of it, consecutive turns of one role
 * merged and empty ones dropped (Anthropic and Gemini both want the roles alternating). A conversation
 * with no turn left is refused.
 */
export function turnsOf<Role extends string, Piece>(
  upstream: string,
  input: readonly ChatMessage[],
  turnOf: (message: ChatMessage, i: number) => Turn<Role, Piece>,
): { system: string; turns: Turn<Role, Piece>[] } {
  const system: string[] = [];
  const turns: Turn<Role, Piece>[] = [];
  input.forEach((message, i) => {
    if (message.role === "system" || message.role === "developer") {
      system.push(textOf(message.content));
      return;
    }
    const { role, pieces } = turnOf(message, i);
    if (pieces.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) last.pieces.push(...pieces);
    else turns.push({ role, pieces });
  });
  if (turns.length === 0) {
    throw new WireRefusal(`${upstream} needs at least one user or assistant message`, "messages");
  }
  return { system: system.filter((s) => s).join("\n\n"), turns };
}
