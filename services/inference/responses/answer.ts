// A chat completion's answer as a Responses API response: the text as a `message` output item with
// one `output_text` part, each tool call as a `function_call` item (its chat id as `call_id`), the
// finish reason as the status, and usage in input/output tokens.

import { cachedTokensOf } from "#adapters/upstream/sse-relay.ts";
import type { ReceivedCompletion, Usage } from "#contracts/openai/chat.ts";
import type {
  ConversationItem,
  FunctionCallOutput,
  MessageOutput,
  OutputItem,
  ResponseObject,
  ResponsesRequest,
  ResponseUsage,
} from "#contracts/openai/responses.ts";

/**
 * Ids: `resp_<hex>`, and its output items `msg_<hex>_<n>` / `fc_<hex>_<n>`, so an item id names the
 * response that holds it (an `item_reference` reads one stored row).
 */
export const newResponseId = () => `resp_${crypto.randomUUID().replaceAll("-", "")}`;
export const itemId = (responseId: string, kind: "msg" | "fc", index: number) =>
  `${kind}_${responseId.slice("resp_".length)}_${index}`;
export function itemLocation(id: string): { responseId: string; index: number } | undefined {
  const match = /^(?:msg|fc)_([0-9a-f]{32})_(\d{1,4})$/.exec(id);
  return match ? { responseId: `resp_${match[1]}`, index: Number(match[2]) } : undefined;
}

export const messageItem = (id: string, text: string, status: MessageOutput["status"]): MessageOutput => ({
  id,
  type: "message",
  role: "assistant",
  status,
  content: [{ type: "output_text", text, annotations: [], logprobs: [] }],
});

export const functionCallItem = (
  id: string,
  call: { call_id: string; name: string; arguments: string },
  status: FunctionCallOutput["status"],
): FunctionCallOutput => ({ id, type: "function_call", status, ...call });

export function outputOf(
  responseId: string,
  answer: ReceivedCompletion,
): { output: OutputItem[]; finishReason: string } {
  const choice = answer.choices?.[0];
  const finishReason = choice?.finish_reason ?? "stop";
  const itemStatus = finishReason === "length" ? "incomplete" : "completed";
  const output: OutputItem[] = [];
  const text = choice?.message?.content ?? "";
  const calls = choice?.message?.tool_calls ?? [];
  if (text !== "" || calls.length === 0)
    output.push(messageItem(itemId(responseId, "msg", 0), text, itemStatus));
  for (const call of calls) {
    output.push(
      functionCallItem(
        itemId(responseId, "fc", output.length),
        {
          call_id: call.id ?? `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`,
          name: call.function?.name ?? "",
          arguments: call.function?.arguments ?? "",
        },
        itemStatus,
      ),
    );
  }
  return { output, finishReason };
}

export const usageOf = (usage: Usage): ResponseUsage => ({
  input_tokens: usage.prompt_tokens,
  input_tokens_details: { cached_tokens: cachedTokensOf(usage), cache_write_tokens: 0 },
  output_tokens: usage.completion_tokens,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: usage.total_tokens,
});

/** The finish reason as the response's status: `length` and `content_filter` leave it incomplete. */
export function statusOf(
  finishReason: string | undefined,
): Pick<ResponseObject, "status" | "incomplete_details"> {
  if (finishReason === "length")
    return { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } };
  if (finishReason === "content_filter") {
    return { status: "incomplete", incomplete_details: { reason: "content_filter" } };
  }
  return { status: "completed", incomplete_details: null };
}

export interface ResponseMeta {
  id: string;
  createdAt: number;
  request: ResponsesRequest;
  store: boolean;
}

/** The response object, in any state; what the request asked for is echoed as OpenAI does. */
export function responseObject(
  meta: ResponseMeta,
  state: Partial<Pick<ResponseObject, "status" | "incomplete_details" | "error" | "output">> & {
    usage?: ResponseUsage | undefined;
  },
): ResponseObject {
  const { request } = meta;
  const status = state.status ?? "in_progress";
  return {
    id: meta.id,
    object: "response",
    created_at: meta.createdAt,
    completed_at: status === "in_progress" ? null : Math.floor(Date.now() / 1000),
    status,
    error: state.error ?? null,
    incomplete_details: state.incomplete_details ?? null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    model: request.model,
    output: state.output ?? [],
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: request.previous_response_id ?? null,
    reasoning: { effort: null, summary: null },
    store: meta.store,
    temperature: request.temperature ?? null,
    top_p: request.top_p ?? null,
    text: { format: request.text?.format ?? { type: "text" } },
    tool_choice: request.tool_choice ?? "auto",
    tools: (request.tools ?? []).map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description ?? null,
      parameters: tool.parameters ?? null,
      strict: tool.strict ?? true,
    })),
    truncation: "disabled",
    ...(state.usage ? { usage: state.usage } : {}),
    metadata: request.metadata ?? {},
    ...(request.user !== undefined ? { user: request.user } : {}),
  };
}

/** Output items as input items of a later turn. */
export const asConversation = (output: OutputItem[]): ConversationItem[] => output;
