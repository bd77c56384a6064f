// A chat completion's stream as the Messages API's events, in Anthropic's order: message_start, a
// ping, then per content block content_block_start, content_block_delta… (text_delta for text,
// input_json_delta for a tool call's arguments), content_block_stop; finally message_delta with the
// stop reason and usage, and message_stop. An error ends the stream with an `error` event.

import type { MessageCreateParams, MessageStreamEvent } from "#contracts/anthropic/messages.ts";
import type { Usage as ChatUsage, ReceivedChunk, ToolCallDelta } from "#contracts/openai/chat.ts";
import type { ReceivedErrorDetail } from "#contracts/openai/error.ts";
import type { StreamTranslator } from "../chat-stream.ts";
import { messageObject, newToolUseId, stopOf, textBlock, toolUseBlock, usageOf } from "./answer.ts";

type OpenBlock = { kind: "text"; index: number } | { kind: "call"; index: number; chatIndex: number };

/** A chunk as engines send it: vLLM's `stop_reason` names the stop string that matched. */
type EngineChunk = ReceivedChunk & {
  choices?: (NonNullable<ReceivedChunk["choices"]>[number] & { stop_reason?: string | number | null })[];
  usage?: ChatUsage;
};

const event = (data: MessageStreamEvent) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;

export function messageEvents(meta: {
  id: string;
  requestId: string;
  request: MessageCreateParams;
}): StreamTranslator {
  let blocks = 0;
  let open: OpenBlock | undefined;
  let usage: ChatUsage | undefined;
  let finishReason: string | undefined;
  let matched: string | number | null | undefined;

  function close(): string {
    if (!open) return "";
    const index = open.index;
    open = undefined;
    return event({ type: "content_block_stop", index });
  }

  function text(delta: string): string {
    let out = "";
    if (open?.kind !== "text") {
      out += close();
      open = { kind: "text", index: blocks++ };
      out += event({ type: "content_block_start", index: open.index, content_block: textBlock("") });
    }
    return (
      out +
      event({ type: "content_block_delta", index: open.index, delta: { type: "text_delta", text: delta } })
    );
  }

  function call(delta: ToolCallDelta): string {
    let out = "";
    if (open?.kind !== "call" || open.chatIndex !== delta.index) {
      out += close();
      open = { kind: "call", index: blocks++, chatIndex: delta.index };
      const block = toolUseBlock(delta.id ?? newToolUseId(), delta.function?.name ?? "", {});
      out += event({ type: "content_block_start", index: open.index, content_block: block });
    }
    const piece = delta.function?.arguments ?? "";
    if (piece === "") return out;
    return (
      out +
      event({
        type: "content_block_delta",
        index: open.index,
        delta: { type: "input_json_delta", partial_json: piece },
      })
    );
  }

  return {
    start: () =>
      event({ type: "message_start", message: messageObject(meta.id, meta.request.model, {}) }) +
      event({ type: "ping" }),
    chunk(chunk: EngineChunk) {
      if (chunk.usage) usage = chunk.usage;
      let out = "";
      for (const choice of chunk.choices ?? []) {
        if (choice.finish_reason) {
          finishReason = choice.finish_reason;
          matched = choice.stop_reason;
        }
        if (choice.delta?.content) out += text(choice.delta.content);
        for (const delta of choice.delta?.tool_calls ?? []) out += call(delta);
      }
      return out;
    },
    error(error: ReceivedErrorDetail) {
      const type = error.code === "content_policy_violation" ? "invalid_request_error" : "api_error";
      return event({ type: "error", error: { type, message: error.message }, request_id: meta.requestId });
    },
    async end() {
      const {
        cache_creation: _c,
        inference_geo: _g,
        service_tier: _t,
        speed: _s,
        ...deltaUsage
      } = usageOf(usage);
      return (
        close() +
        event({
          type: "message_delta",
          delta: { ...stopOf(finishReason, matched, meta.request), stop_details: null, container: null },
          usage: deltaUsage,
        }) +
        event({ type: "message_stop" })
      );
    },
  };
}
