// A Responses request as a chat-completions request: instructions become the system message, input
// items become chat messages (function_call items → an assistant message's tool_calls,
// function_call_output → tool messages), tools and text.format become chat tools and
// response_format. What a chat model's server cannot do is refused by name, never ignored.
import type { ChatCompletionRequest, ChatMessage, ToolCall } from "#contracts/openai/chat.ts";
import type {
  ContentPart,
  ConversationItem,
  InputItem,
  ItemReference,
  MessageItem,
  ResponsesRequest,
} from "#contracts/openai/responses.ts";
import { AppError, invalid } from "#core/errors.ts";

/** Fields of OpenAI's Responses API that need what a self-hosted chat model does not have. */
export function refuseUnsupported(body: ResponsesRequest): void {
  if (body.background === true) throw invalid("background", "background responses are not supported");
  if (body.conversation != null) throw invalid("conversation", "is not supported; use previous_response_id");
  if (body.prompt != null)
    throw invalid("prompt", "stored prompts are not supported; templates are per deployment");
  if (Array.isArray(body.include) && body.include.length > 0) {
    throw invalid("include", `${String(body.include[0])} is not supported`);
  }
  if (typeof body.top_logprobs === "number" && body.top_logprobs > 0) {
    throw invalid("top_logprobs", "is not supported on this endpoint");
  }
  if (body.truncation === "auto") throw invalid("truncation", 'only "disabled" is supported');
}

const isReference = (item: InputItem): item is ItemReference => item.type === "item_reference";

export interface ItemSource {
  /** An item of an earlier stored response of the caller's organization, by its id. */
  item(id: string): Promise<ConversationItem | undefined>;
}

/** This request's input as conversation items: a string is one user message; references resolved. */
export async function inputItems(
  input: ResponsesRequest["input"],
  source: ItemSource,
): Promise<ConversationItem[]> {
  if (typeof input === "string") return [{ type: "message", role: "user", content: input }];
  const items: ConversationItem[] = [];
  for (const [index, item] of input.entries()) {
    if (!isReference(item)) {
      items.push(item);
      continue;
    }
    const found = await source.item(item.id);
    if (!found) {
      throw new AppError("not_found", `no stored item ${item.id}`, {
        param: `input[${index}].id`,
        openai_code: "not_found",
      });
    }
    items.push(found);
  }
  return items;
}

export function toChatRequest(
  body: ResponsesRequest,
  conversation: ConversationItem[],
  /** Where each item sits in `input`, for error params; undefined for earlier turns. */
  inputOffset: number,
): ChatCompletionRequest {
  const chat: ChatCompletionRequest = {
    model: body.model,
    messages: toMessages(body.instructions ?? undefined, conversation, inputOffset),
    stream: body.stream === true,
  };
  if (body.stream === true) chat.stream_options = { include_usage: true };
  if (body.max_output_tokens != null) chat.max_tokens = body.max_output_tokens;
  if (body.temperature != null) chat.temperature = body.temperature;
  if (body.top_p != null) chat.top_p = body.top_p;
  if (body.user != null) chat.user = body.user;
  if (body.tools && body.tools.length > 0) {
    chat.tools = body.tools.map((tool) => ({
      type: "function",
      function: {
        name: tool.name,
        ...(tool.description != null ? { description: tool.description } : {}),
        parameters: tool.parameters ?? { type: "object", properties: {} },
        ...(tool.strict != null ? { strict: tool.strict } : {}),
      },
    }));
    if (body.parallel_tool_calls != null) chat.parallel_tool_calls = body.parallel_tool_calls;
  }
  const choice = body.tool_choice;
  if (choice !== undefined) {
    chat.tool_choice =
      typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } };
    if (typeof choice !== "string" && !body.tools?.some((t) => t.name === choice.name)) {
      throw invalid("tool_choice.name", `names no function in tools: ${choice.name}`);
    }
  }
  const format = body.text?.format;
  if (format?.type === "json_object") chat.response_format = { type: "json_object" };
  if (format?.type === "json_schema") {
    chat.response_format = {
      type: "json_schema",
      json_schema: {
        name: format.name,
        schema: format.schema,
        ...(format.description !== undefined ? { description: format.description } : {}),
        ...(format.strict != null ? { strict: format.strict } : {}),
      },
    };
  }
  return chat;
}

function toMessages(
  instructions: string | undefined,
  items: ConversationItem[],
  inputOffset: number,
): ChatMessage[] {
  const messages: ChatMessage[] = instructions ? [{ role: "system", content: instructions }] : [];
  // The assistant message the next function_call items join, so parallel calls make one message.
  let calls: ToolCall[] | undefined;
  for (const [index, item] of items.entries()) {
    const where = `input[${index - inputOffset}]`;
    if (item.type === "function_call") {
      const call: ToolCall = {
        id: item.call_id,
        type: "function",
        function: { name: item.name, arguments: item.arguments },
      };
      if (calls) calls.push(call);
      else {
        calls = [call];
        const last = messages.at(-1);
        if (last?.role === "assistant" && last.tool_calls === undefined) last.tool_calls = calls;
        else messages.push({ role: "assistant", content: null, tool_calls: calls });
      }
      continue;
    }
    calls = undefined;
    if (item.type === "function_call_output") {
      const output = typeof item.output === "string" ? item.output : textOf(item.output, `${where}.output`);
      messages.push({ role: "tool", tool_call_id: item.call_id, content: output });
      continue;
    }
    messages.push(toMessage(item, where));
  }
  return messages;
}

function toMessage(item: MessageItem, where: string): ChatMessage {
  // Chat templates of open models know system, user and assistant; developer is OpenAI's new name for system.
  const role = item.role === "developer" ? "system" : item.role;
  if (typeof item.content === "string") return { role, content: item.content };
  const hasImage = item.content.some((p) => p.type === "input_image");
  if (!hasImage) return { role, content: textOf(item.content, `${where}.content`) };
  return {
    role,
    content: item.content.map((part, j) => {
      if (part.type !== "input_image")
        return { type: "text", text: textOf([part], `${where}.content[${j}]`) };
      if (!part.image_url)
        throw invalid(`${where}.content[${j}].image_url`, "is required (file_id is not supported)");
      return {
        type: "image_url",
        image_url: { url: part.image_url, ...(part.detail ? { detail: part.detail } : {}) },
      };
    }),
  };
}

function textOf(parts: ContentPart[], where: string): string {
  return parts
    .map((part, j) => {
      if (part.type === "refusal") return part.refusal;
      if (part.type === "input_image") throw invalid(`${where}[${j}]`, "an image is not allowed here");
      return part.text;
    })
    .join("");
}
