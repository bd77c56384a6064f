// Anthropic's Messages API behind the platform's OpenAI-shaped inside: chat becomes POST /v1/messages;
// answers, streams and errors come back as OpenAI's. What Anthropic
// cannot do (embeddings, several choices, logprobs, penalties, logit_bias) is refused with a 400 naming
// the field, never silently dropped. docs/providers.md has the full table.
import {
  checkReceivedError,
  checkReceivedMessage,
  checkReceivedStreamEvent,
  type ReceivedMessage,
  type ReceivedStreamEvent,
  type ReceivedUsage,
  type SentContentBlockParam,
  type SentMessageCreateParams,
  type SentMessageParam,
  type ToolChoice,
} from "#contracts/anthropic/messages.ts";
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
import {
  baseUrlOf,
  chatCompletionFrom,
  chunkOf,
  errorResponse,
  eventDataOf,
  imageUrlOf,
  jsonOf,
  malformed,
  nowSeconds,
  refuseBeyondOneChoice,
  type StreamTranslator,
  sseResponse,
  stopsOf,
  streamError,
  type Turn,
  textOf,
  translateStream,
  turnsOf,
  usageOf,
  WireRefusal,
} from "./openai-side.ts";
import type { OpenAiPath, UpstreamTarget, WireAdapter, WireRequest } from "./wire.ts";

export const anthropicVersion = "2023-06-01";
/**
 * Anthropic requires max_tokens; OpenAI does not. Without one in the request the answer may run to 4096
 * tokens, within every current Claude model's output limit.
 */
export const defaultMaxTokens = 4096;

const upstreamName = "Anthropic";

function headersOf(target: UpstreamTarget): Record<string, string> {
  return {
    "anthropic-version": anthropicVersion,
    ...(target.apiKey ? { "x-api-key": target.apiKey } : {}),
  };
}

const baseOf = (target: UpstreamTarget) => baseUrlOf(target.endpoint, ["v1"]);

// ---- the request ----

/** The chat request as Anthropic's Messages request; throws WireRefusal for what Anthropic cannot do. */
export function toMessagesRequest(
  body: ChatCompletionRequest,
  model: string,
  stream: boolean,
): SentMessageCreateParams {
  refuseUnsupported(body);
  const { system, messages } = conversationOf(body.messages);
  const format = body.response_format;
  // Anthropic has no "any JSON" mode: json_object becomes an instruction; json_schema is enforced.
  const jsonInstruction =
    format?.type === "json_object" ? "Answer with a single JSON object and nothing else." : undefined;
  const systemText = [system, jsonInstruction].filter((s) => s).join("\n\n");
  const stops = stopsOf(body.stop);
  const request: SentMessageCreateParams = {
    model,
    max_tokens: body.max_completion_tokens ?? body.max_tokens ?? defaultMaxTokens,
    messages,
    ...(systemText ? { system: systemText } : {}),
    ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
    ...(body.top_p !== undefined ? { top_p: body.top_p } : {}),
    ...(stops && stops.length > 0 ? { stop_sequences: stops } : {}),
    ...(body.user ? { metadata: { user_id: body.user } } : {}),
    ...(stream ? { stream: true } : {}),
  };
  if (format?.type === "json_schema") {
    request.output_config = {
      format: { type: "json_schema", schema: format.json_schema.schema ?? { type: "object" } },
    };
  }
  if (body.tools && body.tools.length > 0) {
    request.tools = body.tools.map((tool) => ({
      name: tool.function.name,
      ...(tool.function.description ? { description: tool.function.description } : {}),
      input_schema: tool.function.parameters ?? { type: "object", properties: {} },
    }));
    const choice = toolChoiceOf(body);
    if (choice) request.tool_choice = choice;
  }
  return request;
}

function refuseUnsupported(body: ChatCompletionRequest): void {
  refuseBeyondOneChoice(body, {
    n: "Anthropic generates one choice per request: n must be 1",
    logprobs: "Anthropic does not return log probabilities",
    logit_bias: "Anthropic does not take logit_bias",
  });
  for (const field of ["presence_penalty", "frequency_penalty"] as const) {
    const value = body[field];
    if (value !== undefined && value !== 0) {
      throw new WireRefusal(`Anthropic has no ${field}`, field);
    }
  }
  // Anthropic's range is 0..1; scaling OpenAI's 0..2 would change what a caller's value means.
  if (body.temperature !== undefined && body.temperature > 1) {
    throw new WireRefusal("Anthropic takes a temperature from 0 to 1", "temperature");
  }
}

function toolChoiceOf(body: ChatCompletionRequest): ToolChoice | undefined {
  const choice = body.tool_choice;
  const parallel = body.parallel_tool_calls === false ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined)
    return body.parallel_tool_calls === false ? { type: "auto", ...parallel } : undefined;
  if (choice === "none") return { type: "none" };
  if (choice === "auto") return { type: "auto", ...parallel };
  if (choice === "required") return { type: "any", ...parallel };
  return { type: "tool", name: choice.function.name, ...parallel };
}

/**
 * OpenAI's messages as Anthropic's: system and developer turns become `system`; tool results are user
 * turns holding tool_result blocks; consecutive turns of one role merge (Anthropic wants them alternating).
 */
function conversationOf(input: readonly ChatMessage[]): { system: string; messages: SentMessageParam[] } {
  const { system, turns } = turnsOf(
    upstreamName,
    input,
    (message, i): Turn<SentMessageParam["role"], SentContentBlockParam> => {
      switch (message.role) {
        case "assistant":
          return { role: "assistant", pieces: assistantBlocks(message, i) };
        case "tool":
          return {
            role: "user",
            pieces: [
              {
                type: "tool_result",
                tool_use_id: message.tool_call_id ?? "",
                content: textOf(message.content),
              },
            ],
          };
        default:
          return { role: "user", pieces: userBlocks(message, i) };
      }
    },
  );
  return { system, messages: turns.map((turn) => ({ role: turn.role, content: turn.pieces })) };
}

function userBlocks(message: ChatMessage, i: number): SentContentBlockParam[] {
  const content = message.content;
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  const blocks: SentContentBlockParam[] = [];
  (content ?? []).forEach((part, j) => {
    if (part.type === "text") {
      if (part.text) blocks.push({ type: "text", text: part.text });
      return;
    }
    const url = part.type === "image_url" ? imageUrlOf(part) : undefined;
    if (url === undefined) {
      throw new WireRefusal(
        `content parts of type ${JSON.stringify(part.type)} cannot be sent to Anthropic`,
        `messages[${i}].content[${j}]`,
      );
    }
    const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
    blocks.push(
      data
        ? { type: "image", source: { type: "base64", media_type: data[1] ?? "", data: data[2] ?? "" } }
        : { type: "image", source: { type: "url", url } },
    );
  });
  return blocks;
}

function assistantBlocks(message: ChatMessage, i: number): SentContentBlockParam[] {
  const blocks: SentContentBlockParam[] = [];
  const text = textOf(message.content);
  if (text) blocks.push({ type: "text", text });
  (message.tool_calls ?? []).forEach((call, j) => {
    blocks.push({
      type: "tool_use",
      id: call.id,
      name: call.function.name,
      input: argumentsOf(call.function.arguments, `messages[${i}].tool_calls[${j}].function.arguments`),
    });
  });
  return blocks;
}

/** A tool call's arguments (JSON text) as the object Anthropic's tool_use.input holds. */
function argumentsOf(text: string, param: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new WireRefusal("a tool call's arguments must be JSON to be sent to Anthropic", param);
  }
}

// ---- the answer ----

export function finishReasonOf(stop: string | null | undefined): FinishReason {
  switch (stop) {
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "tool_use":
      return "tool_calls";
    case "refusal":
      return "content_filter";
    default:
      // end_turn, stop_sequence, pause_turn, or none given.
      return "stop";
  }
}

/**
 * Anthropic counts cached prompt tokens apart from `input_tokens` (which are only those after the last
 * cache breakpoint); OpenAI's prompt_tokens are all of them, cached_tokens those read from the cache.
 */
function usageFrom(usage: ReceivedUsage): Usage {
  const read = usage.cache_read_input_tokens ?? 0;
  const written = usage.cache_creation_input_tokens ?? 0;
  return usageOf((usage.input_tokens ?? 0) + read + written, usage.output_tokens ?? 0, read);
}

export function chatCompletionOf(message: ReceivedMessage): ChatCompletion {
  const text = message.content
    .filter((block) => block.type === "text")
    .map((block) => block.text ?? "")
    .join("");
  const toolCalls: ToolCall[] = message.content
    .filter((block) => block.type === "tool_use")
    .map((block) => ({
      id: block.id ?? "",
      type: "function",
      function: { name: block.name ?? "", arguments: JSON.stringify(block.input ?? {}) },
    }));
  return chatCompletionFrom({
    id: `chatcmpl-${message.id}`,
    model: message.model,
    text,
    toolCalls,
    finish: finishReasonOf(message.stop_reason),
    usage: usageFrom(message.usage),
  });
}

/** Anthropic's `{type: "error", error: {type, message}}` as OpenAI's body, the status kept. */
async function errorOf(upstream: Response): Promise<Response> {
  const body = await jsonOf(upstream);
  if (checkReceivedError.Check(body))
    return errorResponse(upstream.status, body.error.message, body.error.type);
  return errorResponse(upstream.status, `${upstreamName} answered HTTP ${upstream.status}`, null);
}

/** The stream's state: Anthropic's content block index → the OpenAI tool call index it became. */
function streamTranslator(fallbackModel: string): StreamTranslator {
  let id = "chatcmpl-anthropic";
  let model = fallbackModel;
  const created = nowSeconds();
  let usage: ReceivedUsage = {};
  let stopped = false;
  const toolIndex = new Map<number, number>();
  const chunk = (
    delta: ChatCompletionChunk["choices"][number]["delta"],
    finish: FinishReason = null,
  ): ChatCompletionChunk[] => [chunkOf({ id, created, model }, delta, finish)];
  const on = (event: ReceivedStreamEvent): ChatCompletionChunk[] | OpenAIError => {
    switch (event.type) {
      case "message_start":
        id = `chatcmpl-${event.message.id}`;
        model = event.message.model;
        usage = event.message.usage;
        return chunk({ role: "assistant", content: "" });
      case "content_block_start": {
        const block = event.content_block;
        if (block.type === "tool_use") {
          const index = toolIndex.size;
          toolIndex.set(event.index, index);
          return chunk({
            tool_calls: [
              {
                index,
                id: block.id ?? "",
                type: "function",
                function: { name: block.name ?? "", arguments: "" },
              },
            ],
          });
        }
        return block.type === "text" && block.text ? chunk({ content: block.text }) : [];
      }
      case "content_block_delta": {
        const { delta } = event;
        if (delta.type === "text_delta" && delta.text) return chunk({ content: delta.text });
        const index = toolIndex.get(event.index);
        if (delta.type === "input_json_delta" && index !== undefined && delta.partial_json) {
          return chunk({ tool_calls: [{ index, function: { arguments: delta.partial_json } }] });
        }
        return []; // thinking and signature deltas have no OpenAI counterpart
      }
      case "message_delta":
        // message_delta's usage is cumulative: what it names replaces message_start's.
        usage = { ...usage, ...definedOf(event.usage ?? {}) };
        return chunk({}, finishReasonOf(event.delta.stop_reason));
      case "message_stop":
        stopped = true;
        return [
          { id, object: "chat.completion.chunk", created, model, choices: [], usage: usageFrom(usage) },
        ];
      case "error":
        return {
          error: { message: event.error.message, type: "server_error", param: null, code: event.error.type },
        };
      default:
        return []; // content_block_stop, ping
    }
  };
  return {
    onEvent(_name, data) {
      const event = eventDataOf(upstreamName, data);
      if ("error" in event) return event.error;
      // An event type Anthropic adds later is skipped, as its SDKs skip what they do not know.
      return checkReceivedStreamEvent.Check(event.parsed) ? on(event.parsed) : [];
    },
    onEnd() {
      return stopped ? [] : streamError(`${upstreamName} ended the stream before message_stop`);
    },
  };
}

/** The fields of a usage object that are numbers (Anthropic sends null for counts it does not know). */
function definedOf(usage: ReceivedUsage): ReceivedUsage {
  return Object.fromEntries(Object.entries(usage).filter(([, value]) => typeof value === "number"));
}

// ---- the adapter ----

export const anthropicWire: WireAdapter = {
  id: "anthropic",

  request(target: UpstreamTarget, path: OpenAiPath, body: string, stream: boolean): WireRequest {
    if (path === "/v1/embeddings") {
      throw new WireRefusal(
        "Anthropic has no embeddings API: use an embedding deployment of another provider",
        "model",
        "unsupported_endpoint",
      );
    }
    const chat: ChatCompletionRequest = JSON.parse(body);
    return {
      url: `${baseOf(target)}/v1/messages`,
      headers: {
        ...headersOf(target),
        "content-type": "application/json",
        ...(stream ? { accept: "text/event-stream" } : {}),
      },
      body: JSON.stringify(toMessagesRequest(chat, target.model, stream)),
    };
  },

  async response(upstream: Response, path: OpenAiPath, stream: boolean, target: UpstreamTarget) {
    if (path === "/v1/embeddings") {
      await upstream.body?.cancel().catch(() => {});
      return errorResponse(400, "Anthropic has no embeddings API", "unsupported_endpoint", "model");
    }
    if (!upstream.ok) return errorOf(upstream);
    if (stream) {
      if (!upstream.body) return malformed(upstreamName, "an empty stream");
      return sseResponse(translateStream(upstream.body, streamTranslator(target.model)));
    }
    const message = await jsonOf(upstream);
    if (!checkReceivedMessage.Check(message)) return malformed(upstreamName, "a message");
    const chat = chatCompletionOf(message);
    return Response.json(chat);
  },

  probe(target: UpstreamTarget) {
    return { url: `${baseOf(target)}/v1/models`, headers: headersOf(target) };
  },
};
