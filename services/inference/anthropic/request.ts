// A Messages request as a chat-completions request: `system` becomes the system message, each
// message's blocks become chat messages (tool_use blocks → the assistant message's tool_calls,
// tool_result blocks → tool messages, placed before the user's text as chat templates expect), tools
// and tool_choice become chat tools, stop_sequences `stop`, output_config.format `response_format`,
// metadata.user_id `user`. What a chat
// model's server cannot do is refused by name, never ignored.

import type {
  ContentBlockParam,
  MessageCountTokensParams,
  MessageCreateParams,
  MessageParam,
  Tool,
  ToolChoice,
} from "#contracts/anthropic/messages.ts";
import type { ChatCompletionRequest, ChatMessage, ToolCall } from "#contracts/openai/chat.ts";
import { invalid } from "#core/errors.ts";

/** The request as a chat body; `max_tokens` and sampling only for create (count_tokens has none). */
export function toChatRequest(body: MessageCreateParams): ChatCompletionRequest {
  const chat = promptOf(body);
  chat.max_tokens = body.max_tokens;
  chat.stream = body.stream === true;
  if (body.stream === true) chat.stream_options = { include_usage: true };
  if (body.temperature !== undefined) chat.temperature = body.temperature;
  if (body.top_p !== undefined) chat.top_p = body.top_p;
  // Not an OpenAI parameter, but llama.cpp's, vLLM's and SGLang's servers read it.
  if (body.top_k !== undefined && body.top_k > 0) chat.top_k = body.top_k;
  if (body.stop_sequences && body.stop_sequences.length > 0) chat.stop = body.stop_sequences;
  const format = body.output_config?.format;
  if (format) {
    chat.response_format = {
      type: "json_schema",
      json_schema: { name: "output", schema: format.schema, strict: true },
    };
  }
  const user = body.metadata?.user_id;
  if (typeof user === "string" && user !== "") chat.user = user;
  return chat;
}

/** The prompt part, shared with count_tokens: messages, tools and tool choice. */
export function promptOf(body: MessageCountTokensParams): ChatCompletionRequest {
  const chat: ChatCompletionRequest = {
    model: body.model,
    messages: [...systemOf(body.system), ...body.messages.flatMap(toMessages)],
  };
  const tools = body.tools ?? [];
  if (tools.length > 0) chat.tools = tools.map(toChatTool);
  if (body.tool_choice) Object.assign(chat, toolChoiceOf(body.tool_choice, tools));
  return chat;
}

function systemOf(system: MessageCountTokensParams["system"]): ChatMessage[] {
  if (system === undefined) return [];
  const content = typeof system === "string" ? system : system.map((block) => block.text).join("\n\n");
  return content === "" ? [] : [{ role: "system", content }];
}

function toChatTool(tool: Tool, index: number) {
  if (tool.type != null && tool.type !== "custom") {
    throw invalid(`tools[${index}].type`, `${tool.type}: Anthropic's server tools are not supported`);
  }
  return {
    type: "function" as const,
    function: {
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      parameters: tool.input_schema ?? { type: "object", properties: {} },
    },
  };
}

function toolChoiceOf(choice: ToolChoice, tools: Tool[]): Partial<ChatCompletionRequest> {
  if (choice.type === "none") return { tool_choice: "none" };
  if (tools.length === 0) throw invalid("tool_choice", `${choice.type} needs tools`);
  const parallel = choice.disable_parallel_tool_use === true ? { parallel_tool_calls: false } : {};
  if (choice.type === "auto") return { tool_choice: "auto", ...parallel };
  if (choice.type === "any") return { tool_choice: "required", ...parallel };
  if (!tools.some((tool) => tool.name === choice.name)) {
    throw invalid("tool_choice.name", `names no tool in tools: ${choice.name}`);
  }
  return { tool_choice: { type: "function", function: { name: choice.name } }, ...parallel };
}

function toMessages(message: MessageParam, index: number): ChatMessage[] {
  if (typeof message.content === "string") return [{ role: message.role, content: message.content }];
  const where = `messages[${index}].content`;
  const texts: string[] = [];
  const calls: ToolCall[] = [];
  const results: ChatMessage[] = [];
  for (const [j, block] of message.content.entries()) {
    const at = `${where}[${j}]`;
    switch (block.type) {
      case "text":
        texts.push(block.text);
        break;
      case "tool_use":
        if (message.role !== "assistant")
          throw invalid(`${at}.type`, "tool_use blocks belong to assistant turns");
        calls.push({
          id: block.id,
          type: "function",
          function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
        });
        break;
      case "tool_result":
        if (message.role !== "user") throw invalid(`${at}.type`, "tool_result blocks belong to user turns");
        results.push({ role: "tool", tool_call_id: block.tool_use_id, content: resultText(block, at) });
        break;
      case "thinking":
      case "redacted_thinking":
        // Earlier reasoning handed back by the client: the model does not read it again.
        break;
      default:
        throw refused(block, at);
    }
  }
  if (message.role === "user") {
    const text = texts.join("\n\n");
    return text === "" && results.length > 0 ? results : [...results, { role: "user", content: text }];
  }
  return [
    {
      role: "assistant",
      content: texts.length > 0 ? texts.join("\n\n") : null,
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    },
  ];
}

function resultText(block: Extract<ContentBlockParam, { type: "tool_result" }>, at: string): string {
  const text =
    block.content === undefined
      ? ""
      : typeof block.content === "string"
        ? block.content
        : block.content
            .map((part, k) => {
              if (part.type !== "text") throw refused(part, `${at}.content[${k}]`);
              return part.text;
            })
            .join("\n\n");
  // The chat format has no error flag on a tool message: the model reads it in the text.
  return block.is_error === true ? `Error: ${text}` : text;
}

function refused(block: { type: string }, at: string) {
  if (block.type === "image" || block.type === "document") {
    return invalid(`${at}.type`, `${block.type} blocks are not supported: this deployment reads text only`);
  }
  return invalid(`${at}.type`, `${block.type} blocks are not supported`);
}
