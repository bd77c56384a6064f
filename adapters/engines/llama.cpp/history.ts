// OpenAI messages → node-llama-cpp chat history. An assistant message's `tool_calls` become functionCall items
// holding the results that `tool` messages give for their ids, so the chat wrapper renders each call with its
// result the way the model was trained to read them.
import type { ChatHistoryItem, ChatModelFunctionCall, ChatModelResponse } from "node-llama-cpp";
import type { EngineChatCompletionRequest } from "#contracts/openai/chat.ts";
import { invalidRequest, type Parsed } from "./openai-shapes.ts";

/** The system prompt gets the text (a new first system message when there is none). */
export function addSystemText(history: ChatHistoryItem[], text: string): void {
  const first = history[0];
  if (first?.type === "system") first.text = first.text ? `${first.text}\n\n${text}` : text;
  else history.unshift({ type: "system", text });
}

function textOf(content: EngineChatCompletionRequest["messages"][number]["content"]): string {
  if (typeof content === "string") return content;
  // Non-text parts were refused when the request was parsed.
  return (content ?? []).map((part) => part.text ?? "").join("\n");
}

/**
 * OpenAI messages → node-llama-cpp history. An assistant message's `tool_calls` become functionCall items holding
 * the results that `tool` messages give for their ids, so the wrapper renders call and result together.
 */
export function toChatHistory(messages: EngineChatCompletionRequest["messages"]): Parsed<ChatHistoryItem[]> {
  const history: ChatHistoryItem[] = [];
  const calls = new Map<string, ChatModelFunctionCall>();
  for (const [i, m] of messages.entries()) {
    const text = textOf(m.content);
    switch (m.role) {
      case "system":
      case "developer":
        history.push({ type: "system", text });
        break;
      case "user":
        history.push({ type: "user", text });
        break;
      case "assistant": {
        const response: ChatModelResponse["response"] = text ? [text] : [];
        for (const [j, call] of (m.tool_calls ?? []).entries()) {
          let params: unknown;
          try {
            params = JSON.parse(call.function.arguments);
          } catch {
            return refuse(
              "the arguments of a tool call must be JSON text",
              `messages[${i}].tool_calls[${j}].function.arguments`,
            );
          }
          const item: ChatModelFunctionCall = {
            type: "functionCall",
            name: call.function.name,
            params,
            result: "",
          };
          calls.set(call.id, item);
          response.push(item);
        }
        history.push({ type: "model", response: response.length > 0 ? response : [""] });
        break;
      }
      case "tool": {
        const call = m.tool_call_id === undefined ? undefined : calls.get(m.tool_call_id);
        if (!call)
          return refuse(
            "a tool message must answer a tool call of an earlier assistant message (tool_call_id)",
            `messages[${i}].tool_call_id`,
          );
        call.result = parsedOrText(text);
        break;
      }
    }
  }
  return { ok: true, value: history };
}

/** A result that is JSON reaches the model as that value (rendered as JSON), anything else as text. */
function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function refuse(message: string, param: string): Parsed<never> {
  return { ok: false, error: invalidRequest(message, param) };
}
