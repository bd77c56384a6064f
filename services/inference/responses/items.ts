// The input items of a stored response, as GET /v1/responses/{id}/input_items lists them: every item
// the model answered (earlier turns of `previous_response_id` included, as OpenAI lists them), each with
// an id, in OpenAI's item shapes (a user's message with input content parts, an assistant's as an output
// message, function calls and their outputs), a page at a time.

import type {
  ContentPart,
  ConversationItem,
  InputContent,
  InputItemList,
  InputItemsQuery,
  ItemResource,
} from "#contracts/openai/responses.ts";
import { invalid } from "#core/errors.ts";

const prefixes = { message: "msg", function_call: "fc", function_call_output: "fco" } as const;

/**
 * Each item without an id gets one, `<kind>_<hex of the response>_in<position>`, when the response is
 * stored, so an item keeps its id in every later response that carries it. (Output items have theirs,
 * `<kind>_<hex>_<index>`: answer.ts.)
 */
export function withIds(items: ConversationItem[], responseId: string): IdentifiedItem[] {
  const hex = responseId.slice("resp_".length);
  return items.map((item, position) => ({
    ...item,
    id: item.id ?? `${prefixes[item.type ?? "message"]}_${hex}_in${position}`,
  }));
}

export type IdentifiedItem = ConversationItem & { id: string };

const inputPart = (part: ContentPart): InputContent => {
  switch (part.type) {
    case "input_image":
      return { type: "input_image", image_url: part.image_url ?? null, detail: detailOf(part.detail) };
    case "refusal":
      return { type: "input_text", text: part.refusal };
    default:
      return { type: "input_text", text: part.text };
  }
};

const details = ["low", "high", "auto", "original"] as const;
const detailOf = (detail: string | undefined) => details.find((d) => d === detail) ?? "auto";

const outputPart = (part: ContentPart) =>
  part.type === "refusal"
    ? { type: "refusal" as const, refusal: part.refusal }
    : {
        type: "output_text" as const,
        text: part.type === "input_image" ? "" : part.text,
        annotations: [],
        logprobs: [],
      };

/** A conversation item (with its id, see withIds) in OpenAI's item shape. */
export function itemResource(item: IdentifiedItem): ItemResource {
  const status = item.status === "in_progress" || item.status === "incomplete" ? item.status : "completed";
  switch (item.type) {
    case "function_call":
      return {
        id: item.id,
        type: "function_call",
        call_id: item.call_id,
        name: item.name,
        arguments: item.arguments,
        status,
      };
    case "function_call_output":
      return {
        id: item.id,
        type: "function_call_output",
        call_id: item.call_id,
        output: typeof item.output === "string" ? item.output : item.output.map(inputPart),
        status,
      };
    default: {
      const parts: ContentPart[] =
        typeof item.content === "string" ? [{ type: "input_text", text: item.content }] : item.content;
      if (item.role === "assistant") {
        return {
          id: item.id,
          type: "message",
          role: "assistant",
          content: parts.filter((p) => p.type !== "input_image").map(outputPart),
          status,
        };
      }
      return { id: item.id, type: "message", role: item.role, content: parts.map(inputPart), status };
    }
  }
}

/** One page of a response's input items: `order` (default newest first), after the item `after`. */
export function inputItemPage(
  conversation: ConversationItem[],
  responseId: string,
  query: InputItemsQuery,
): InputItemList {
  if (query.include !== undefined && query.include.length > 0)
    throw invalid("include", "no extra item fields are kept; leave it out");
  const items = withIds(conversation, responseId).map(itemResource);
  const ordered = (query.order ?? "desc") === "asc" ? items : items.reverse();
  let start = 0;
  if (query.after !== undefined) {
    const at = ordered.findIndex((item) => item.id === query.after);
    if (at < 0) throw invalid("after", `no item ${query.after} in this response's input`);
    start = at + 1;
  }
  const limit = query.limit ?? 20;
  const data = ordered.slice(start, start + limit);
  return {
    object: "list",
    data,
    first_id: data[0]?.id ?? "",
    last_id: data.at(-1)?.id ?? "",
    has_more: start + limit < ordered.length,
  };
}
