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

export function responseEvents(
  meta: ResponseMeta,
  /** Called with the finished response before response.completed is sent (storage). */
  onDone: (response: ResponseObject) => Promise<void>,
): StreamTranslator {
  let sequence = 0;
  const output: OutputItem[] = [];
  let open: OpenItem | undefined;
  let usage: Usage | undefined;
  let finishReason: string | undefined;

  const event = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data, sequence_number: sequence++ })}\n\n`;

  const itemStatus = () => (finishReason === "length" ? "incomplete" : "completed");

  function close(): string {
    if (!open) return "";
    const item = open;
    open = undefined;
    if (item.kind === "text") {
      const done = messageItem(item.id, item.text, itemStatus());
      output.push(done);
      const part = done.content[0];
      return (
        event("response.output_text.done", {
          item_id: item.id,
          output_index: item.index,
          content_index: 0,
          text: item.text,
          logprobs: [],
        }) +
        event("response.content_part.done", {
          item_id: item.id,
          output_index: item.index,
          content_index: 0,
          part,
        }) +
        event("response.output_item.done", { output_index: item.index, item: done })
      );
    }
    const done = functionCallItem(
      item.id,
      { call_id: item.callId, name: item.name, arguments: item.arguments },
      itemStatus(),
    );
    output.push(done);
    return (
      event("response.function_call_arguments.done", {
        item_id: item.id,
        output_index: item.index,
        name: item.name,
        arguments: item.arguments,
      }) + event("response.output_item.done", { output_index: item.index, item: done })
    );
  }

  function text(delta: string): string {
    let out = "";
    if (open?.kind !== "text") {
      out += close();
      const index = output.length;
      open = { kind: "text", index, id: itemId(meta.id, "msg", index), text: "" };
      const added = messageItem(open.id, "", "in_progress");
      out += event("response.output_item.added", { output_index: index, item: { ...added, content: [] } });
      out += event("response.content_part.added", {
        item_id: open.id,
        output_index: index,
        content_index: 0,
        part: added.content[0],
      });
    }
    if (delta === "") return out;
    open.text += delta;
    return (
      out +
      event("response.output_text.delta", {
        item_id: open.id,
        output_index: open.index,
        content_index: 0,
        delta,
        logprobs: [],
      })
    );
  }

  function call(
    delta: NonNullable<
      NonNullable<NonNullable<ReceivedChunk["choices"]>[number]["delta"]>["tool_calls"]
    >[number],
  ) {
    let out = "";
    if (open?.kind !== "call" || open.chatIndex !== delta.index) {
      out += close();
      const index = output.length;
      open = {
        kind: "call",
        index,
        id: itemId(meta.id, "fc", index),
        chatIndex: delta.index,
        callId: delta.id ?? `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`,
        name: delta.function?.name ?? "",
        arguments: "",
      };
      out += event("response.output_item.added", {
        output_index: index,
        item: functionCallItem(
          open.id,
          { call_id: open.callId, name: open.name, arguments: "" },
          "in_progress",
        ),
      });
    }
    const piece = delta.function?.arguments ?? "";
    if (piece === "") return out;
    open.arguments += piece;
    return (
      out +
      event("response.function_call_arguments.delta", {
        item_id: open.id,
        output_index: open.index,
        delta: piece,
      })
    );
  }

  const translator: StreamTranslator = {
    start: () =>
      event("response.created", { response: responseObject(meta, {}) }) +
      event("response.in_progress", { response: responseObject(meta, {}) }),
    chunk(chunk: ReceivedChunk) {
      if (chunk.usage) usage = chunk.usage;
      let out = "";
      for (const choice of chunk.choices ?? []) {
        if (choice.finish_reason) finishReason = choice.finish_reason;
        if (choice.delta?.content) out += text(choice.delta.content);
        for (const delta of choice.delta?.tool_calls ?? []) out += call(delta);
      }
      return out;
    },
    error(error: ReceivedErrorDetail) {
      const failed = responseObject(meta, {
        status: "failed",
        // The failed response's code is one of OpenAI's list; the `error` event before it keeps ours.
        error: {
          code: error.code === "rate_limit_exceeded" ? error.code : "server_error",
          message: error.message,
        },
        output,
      });
      return (
        event("error", { code: error.code ?? null, message: error.message, param: error.param ?? null }) +
        event("response.failed", { response: failed })
      );
    },
    async end() {
      let out = close();
      if (output.length === 0) {
        // A model that said nothing still answers one (empty) message, as non-streamed.
        out += text("");
        out += close();
      }
      const response = responseObject(meta, {
        ...statusOf(finishReason),
        output,
        usage: usage ? usageOf(usage) : undefined,
      });
      try {
        await onDone(response);
      } catch {
        // Not stored: say so rather than complete a response whose id would then be unknown.
        return out + translator.error({ code: "server_error", message: "the response could not be stored" });
      }
      const type = response.status === "incomplete" ? "response.incomplete" : "response.completed";
      return out + event(type, { response });
    },
  };
  return translator;
}
