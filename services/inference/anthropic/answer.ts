// A chat completion's answer as a Messages API message: the text as a `text` block, each tool call as
// a `tool_use` block (its chat id kept, its JSON arguments parsed into `input`), the finish reason as
// `stop_reason`, and usage in input/output tokens with the engine's reused prompt tokens as
// `cache_read_input_tokens`.

import type {
  ContentBlock,
  Message,
  MessageCreateParams,
  StopReason,
  ToolUseBlock,
  Usage,
} from "#contracts/anthropic/messages.ts";
import type { Usage as ChatUsage, ReceivedCompletion } from "#contracts/openai/chat.ts";

export const newMessageId = () => `msg_${crypto.randomUUID().replaceAll("-", "")}`;
export const newToolUseId = () => `toolu_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;

/**
 * The finish reason as a stop reason. "stop" is a stop sequence when the engine says which one matched
 * (vLLM's `stop_reason`), else the end of the turn.
 */
export function stopOf(
  finishReason: string | null | undefined,
  matched: string | number | null | undefined,
  request: Pick<MessageCreateParams, "stop_sequences">,
): { stop_reason: StopReason; stop_sequence: string | null } {
  if (finishReason === "tool_calls") return { stop_reason: "tool_use", stop_sequence: null };
  if (finishReason === "length") return { stop_reason: "max_tokens", stop_sequence: null };
  if (finishReason === "content_filter") return { stop_reason: "refusal", stop_sequence: null };
  if (typeof matched === "string" && request.stop_sequences?.includes(matched)) {
    return { stop_reason: "stop_sequence", stop_sequence: matched };
  }
  return { stop_reason: "end_turn", stop_sequence: null };
}

/** A tool call's JSON arguments as `input`; arguments cut off by max_tokens are not JSON: `{}` then. */
export function inputOf(args: string | undefined): unknown {
  if (!args) return {};
  try {
    return JSON.parse(args);
  } catch {
    return {};
  }
}

export const textBlock = (text: string): ContentBlock => ({ type: "text", text, citations: null });

export const toolUseBlock = (id: string, name: string, input: unknown): ToolUseBlock => ({
  type: "tool_use",
  id,
  name,
  input,
  caller: { type: "direct" },
});

export function usageOf(usage: ChatUsage | undefined): Usage {
  return {
    input_tokens: usage?.prompt_tokens ?? 0,
    output_tokens: usage?.completion_tokens ?? 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: usage?.prompt_tokens_details?.cached_tokens ?? 0,
    cache_creation: null,
    inference_geo: null,
    output_tokens_details: null,
    server_tool_use: null,
    service_tier: "standard",
    speed: null,
  };
}

/** The message object; `content` and the stop empty until the answer is known (message_start). */
export function messageObject(
  id: string,
  model: string,
  state: Partial<Pick<Message, "content" | "stop_reason" | "stop_sequence" | "usage">>,
): Message {
  return {
    id,
    type: "message",
    role: "assistant",
    model,
    content: state.content ?? [],
    stop_reason: state.stop_reason ?? null,
    stop_sequence: state.stop_sequence ?? null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: state.usage ?? usageOf(undefined),
  };
}

export function messageOf(id: string, request: MessageCreateParams, answer: ReceivedCompletion): Message {
  const choice = answer.choices?.[0];
  const content: ContentBlock[] = [];
  const text = choice?.message?.content ?? "";
  if (text !== "") content.push(textBlock(text));
  for (const call of choice?.message?.tool_calls ?? []) {
    content.push(
      toolUseBlock(call.id ?? newToolUseId(), call.function?.name ?? "", inputOf(call.function?.arguments)),
    );
  }
  return messageObject(id, request.model, {
    content,
    ...stopOf(choice?.finish_reason, choice?.stop_reason, request),
    usage: usageOf(answer.usage),
  });
}
