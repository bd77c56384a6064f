import type { ChatMessage } from "#contracts/openai/chat.ts";

// The text of chat messages (the contract is contracts/openai/chat.ts), and the up-front token estimate
// that rate limits charge before the model has counted (corrected with the real usage afterwards).

export function textOf(message: ChatMessage): string {
  if (typeof message.content === "string") return message.content;
  if (Array.isArray(message.content)) return message.content.map((p) => p.text ?? "").join("");
  return "";
}

/** About four characters a token for English text, plus the few tokens each message's framing costs. */
export function estimatePromptTokens(messages: readonly ChatMessage[]): number {
  let chars = 0;
  for (const m of messages) chars += textOf(m).length;
  return Math.ceil(chars / 4) + messages.length * 4 + 2;
}

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
