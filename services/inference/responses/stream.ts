// A chat completion's stream as the Responses API's streaming events, in OpenAI's order:
// response.created, response.in_progress; per output item output_item.added, then for text
// content_part.added, output_text.delta…, output_text.done, content_part.done, and for a function
// call function_call_arguments.delta…, function_call_arguments.done; output_item.done; finally
// response.completed (or response.incomplete) with usage. Every event carries `sequence_number`.
// An error ends the stream with an `error` event and response.failed.
import type { ReceivedChunk, Usage } from "#contracts/openai/chat.ts";
import type { ReceivedErrorDetail } from "#contracts/openai/error.ts";
import type { OutputItem, ResponseObject } from "#contracts/openai/responses.ts";
import type { StreamTranslator } from "../chat-stream.ts";
import {
  functionCallItem,
  itemId,
  messageItem,
  type ResponseMeta,
  responseObject,
  statusOf,
  usageOf,
} from "./answer.ts";

type OpenItem =
  | { kind: "text"; index: number; id: string; text: string }
  | {
      kind: "call";
      index: number;
      id: string;
      chatIndex: number;
      callId: string;
      name: string;
      arguments: string;
    };

type ToolCallPiece = NonNullable<
  NonNullable<NonNullable<ReceivedChunk["choices"]>[number]["delta"]>["tool_calls"]
>[number];

/**
 * The translation's state (the events sent so far, the item being written, the finish reason and usage)
 * and one method per kind of output: a text delta, a tool call piece, the item's end.
 */
class ResponseStream {
  private sequence = 0;
  readonly output: OutputItem[] = [];
  private open: OpenItem | undefined;
  usage: Usage | undefined;
  finishReason: string | undefined;

  constructor(private readonly meta: ResponseMeta) {}

  event(type: string, data: object): string {
    return `event: ${type}\ndata: ${JSON.stringify({ type, ...data, sequence_number: this.sequence++ })}\n\n`;
  }

  private itemStatus() {
    return this.finishReason === "length" ? "incomplete" : "completed";
  }

  /** The open item's last events; "" when none is open. */
  close(): string {
    const item = this.open;
    this.open = undefined;
    if (!item) return "";
    return item.kind === "text" ? this.closeText(item) : this.closeCall(item);
  }

  private closeText(item: Extract<OpenItem, { kind: "text" }>): string {
    const done = messageItem(item.id, item.text, this.itemStatus());
    this.output.push(done);
    const at = { item_id: item.id, output_index: item.index, content_index: 0 };
    return (
      this.event("response.output_text.done", { ...at, text: item.text, logprobs: [] }) +
      this.event("response.content_part.done", { ...at, part: done.content[0] }) +
      this.event("response.output_item.done", { output_index: item.index, item: done })
    );
  }

  private closeCall(item: Extract<OpenItem, { kind: "call" }>): string {
    const call = { call_id: item.callId, name: item.name, arguments: item.arguments };
    const done = functionCallItem(item.id, call, this.itemStatus());
    this.output.push(done);
    return (
      this.event("response.function_call_arguments.done", {
        item_id: item.id,
        output_index: item.index,
        name: item.name,
        arguments: item.arguments,
      }) + this.event("response.output_item.done", { output_index: item.index, item: done })
    );
  }

  /** A message item opened (after closing another): its added events. */
  private openText(): { item: Extract<OpenItem, { kind: "text" }>; out: string } {
    const out = this.close();
    const index = this.output.length;
    const item = { kind: "text" as const, index, id: itemId(this.meta.id, "msg", index), text: "" };
    this.open = item;
    const added = messageItem(item.id, "", "in_progress");
    return {
      item,
      out:
        out +
        this.event("response.output_item.added", { output_index: index, item: { ...added, content: [] } }) +
        this.event("response.content_part.added", {
          item_id: item.id,
          output_index: index,
          content_index: 0,
          part: added.content[0],
        }),
    };
  }

  text(delta: string): string {
    const { item, out } = this.open?.kind === "text" ? { item: this.open, out: "" } : this.openText();
    if (delta === "") return out;
    item.text += delta;
    return (
      out +
      this.event("response.output_text.delta", {
        item_id: item.id,
        output_index: item.index,
        content_index: 0,
        delta,
        logprobs: [],
      })
    );
  }

  /** A function call item opened for a new chat tool call (after closing another): its added event. */
  private openCall(delta: ToolCallPiece): { item: Extract<OpenItem, { kind: "call" }>; out: string } {
    const out = this.close();
    const index = this.output.length;
    const item = {
      kind: "call" as const,
      index,
      id: itemId(this.meta.id, "fc", index),
      chatIndex: delta.index,
      callId: delta.id ?? `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`,
      name: delta.function?.name ?? "",
      arguments: "",
    };
    this.open = item;
    const added = functionCallItem(
      item.id,
      { call_id: item.callId, name: item.name, arguments: "" },
      "in_progress",
    );
    return {
      item,
      out: out + this.event("response.output_item.added", { output_index: index, item: added }),
    };
  }

  call(delta: ToolCallPiece): string {
    const current = this.open?.kind === "call" && this.open.chatIndex === delta.index ? this.open : undefined;
    const { item, out } = current ? { item: current, out: "" } : this.openCall(delta);
    const piece = delta.function?.arguments ?? "";
    if (piece === "") return out;
    item.arguments += piece;
    return (
      out +
      this.event("response.function_call_arguments.delta", {
        item_id: item.id,
        output_index: item.index,
        delta: piece,
      })
    );
  }

  chunk(chunk: ReceivedChunk): string {
    if (chunk.usage) this.usage = chunk.usage;
    let out = "";
    for (const choice of chunk.choices ?? []) {
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
      if (choice.delta?.content) out += this.text(choice.delta.content);
      for (const delta of choice.delta?.tool_calls ?? []) out += this.call(delta);
    }
    return out;
  }

  error(error: ReceivedErrorDetail): string {
    const failed = responseObject(this.meta, {
      status: "failed",
      // The failed response's code is one of OpenAI's list; the `error` event before it keeps ours.
      error: {
        code: error.code === "rate_limit_exceeded" ? error.code : "server_error",
        message: error.message,
      },
      output: this.output,
    });
    return (
      this.event("error", { code: error.code ?? null, message: error.message, param: error.param ?? null }) +
      this.event("response.failed", { response: failed })
    );
  }

  /** The last item's events, and the finished response (a model that said nothing answers one empty message). */
  finish(): { out: string; response: ResponseObject } {
    let out = this.close();
    if (this.output.length === 0) out += this.text("") + this.close();
    const response = responseObject(this.meta, {
      ...statusOf(this.finishReason),
      output: this.output,
      usage: this.usage ? usageOf(this.usage) : undefined,
    });
    return { out, response };
  }
}

export function responseEvents(
  meta: ResponseMeta,
  /** Called with the finished response before response.completed is sent (storage). */
  onDone: (response: ResponseObject) => Promise<void>,
): StreamTranslator {
  const stream = new ResponseStream(meta);
  return {
    start: () =>
      stream.event("response.created", { response: responseObject(meta, {}) }) +
      stream.event("response.in_progress", { response: responseObject(meta, {}) }),
    chunk: (chunk) => stream.chunk(chunk),
    error: (error) => stream.error(error),
    async end() {
      const { out, response } = stream.finish();
      try {
        await onDone(response);
      } catch {
        // Not stored: say so rather than complete a response whose id would then be unknown.
        return out + stream.error({ code: "server_error", message: "the response could not be stored" });
      }
      const type = response.status === "incomplete" ? "response.incomplete" : "response.completed";
      return out + stream.event(type, { response });
    },
  };
}
