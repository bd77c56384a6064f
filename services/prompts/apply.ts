// What a prompt template does to a conversation: its system prompt goes first, as a system message,
// and its user template wraps the caller's last user message ({{input}}), with retrieved passages
// in {{context}}. The placeholders are filled in one pass, so text the caller sends that looks like
// a placeholder stays as it is.
import type { ChatMessage } from "#contracts/openai/chat.ts";
import { textOf } from "../guardrails/message-text.ts";

export interface TemplateContent {
  systemPrompt: string | null;
  userTemplate: string | null;
}

export function applyTemplate(
  messages: readonly ChatMessage[],
  template: TemplateContent,
  context = "",
): ChatMessage[] {
  const result = [...messages];
  if (template.userTemplate !== null) {
    const last = result.findLastIndex((m) => m.role === "user");
    if (last >= 0) {
      const message = result[last] as ChatMessage;
      const input = textOf(message);
      const content = template.userTemplate.replace(/\{\{(input|context)\}\}/g, (_, name: string) =>
        name === "input" ? input : context,
      );
      result[last] = { ...message, content };
    }
  }
  if (template.systemPrompt !== null) result.unshift({ role: "system", content: template.systemPrompt });
  return result;
}
