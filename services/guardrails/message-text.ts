// What the scanners read of a chat message (the contract is contracts/openai/chat.ts): its text, and
// whether it carries data (a tool's result) rather than the caller's words. Here, under both the
// guardrails and the inference lifecycle that calls them, so that neither imports the other for it.
import type { ChatMessage } from "#contracts/openai/chat.ts";

export function textOf(message: ChatMessage): string {
  if (typeof message.content === "string") return message.content;
  if (Array.isArray(message.content)) return message.content.map((p) => p.text ?? "").join("");
  return "";
}

/**
 * A tool's result (OpenAI `tool`; the Messages API's tool_result blocks and the Responses API's
 * function_call_output items arrive here translated into `tool` messages).
 */
export function isDataMessage(message: ChatMessage): boolean {
  return message.role === "tool";
}
