// The up-front token estimate that rate limits charge before the model has counted (corrected with the
// real usage afterwards); the text of a message is read as the scanners read it.
import type { ChatMessage } from "#contracts/openai/chat.ts";
import { textOf } from "../guardrails/message-text.ts";

/** About four characters a token for English text, plus the few tokens each message's framing costs. */
export function estimatePromptTokens(messages: readonly ChatMessage[]): number {
  let chars = 0;
  for (const m of messages) chars += textOf(m).length;
  return Math.ceil(chars / 4) + messages.length * 4 + 2;
}

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
