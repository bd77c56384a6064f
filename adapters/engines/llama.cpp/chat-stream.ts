// A chat completion as server-sent events: the role chunk at once (the client has its headers while
// the request waits for a sequence), then text and tool-call deltas as they are sampled, the finish,
// the usage when asked, and [DONE]. The client closing the stream aborts the generation.

import type { ChatCompletionChunk } from "#contracts/openai/chat.ts";
import type { GenerationEvents, GenerationInput } from "./generate.ts";
import type { SampledToken } from "./logprobs.ts";
import { invalidStructuredOutput, usageOf } from "./openai-shapes.ts";
import {
  errorBody,
  logprobsOf,
  type Meta,
  type RouteContext,
  runOnSequence,
  shuttingDown,
} from "./route-context.ts";
import { newToolCallId } from "./tools.ts";

type Delta = ChatCompletionChunk["choices"][0]["delta"];
type Finish = ChatCompletionChunk["choices"][0]["finish_reason"];

const chunkOf =
  (meta: Meta) =>
  (delta: Delta, finish: Finish, logprobs?: SampledToken[], stopSequence?: string): ChatCompletionChunk => ({
    id: meta.id,
    object: "chat.completion.chunk",
    created: meta.created,
    model: meta.model,
    choices: [
      {
        index: 0,
        delta,
        ...(logprobs ? { logprobs: logprobsOf(logprobs) } : {}),
        finish_reason: finish,
        ...(stopSequence === undefined ? {} : { stop_reason: stopSequence }),
      },
    ],
  });

/** The generation's events as chunks: text as it comes, each tool call with its id on its first piece. */
function deltaEvents(send: (delta: Delta, logprobs?: SampledToken[]) => void): GenerationEvents {
  const callIds = new Map<number, string>();
  return {
    onText: (text, logprobs) => {
      if (text) send({ content: text }, logprobs);
    },
    onToolCall: ({ index, name, arguments: args }) => {
      let id: string | undefined;
      if (!callIds.has(index)) {
        id = newToolCallId();
        callIds.set(index, id);
      }
      const head = id ? { id, type: "function" as const } : {};
      const fn = name === undefined ? { arguments: args ?? "" } : { name, arguments: args ?? "" };
      send({ tool_calls: [{ index, ...head, function: fn }] });
    },
  };
}

export function streamCompletion(
  ctx: RouteContext,
  input: GenerationInput,
  signal: AbortSignal,
  meta: Meta,
  includeUsage: boolean,
): Response {
  const encoder = new TextEncoder();
  const cancelled = new AbortController();
  const stop = AbortSignal.any([signal, cancelled.signal]);
  const chunk = chunkOf(meta);
  let open = true;

  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const write = (text: string) => {
        if (open) controller.enqueue(encoder.encode(text));
      };
      const send = (data: unknown) => write(`data: ${JSON.stringify(data)}\n\n`);
      const end = () => {
        if (!open) return;
        open = false;
        controller.close();
      };
      // An answer that must be a call has no text: null content, as OpenAI streams a forced call.
      send(chunk({ role: "assistant", content: input.output.kind === "call" ? null : "" }, null));
      const events = deltaEvents((delta, logprobs) => send(chunk(delta, null, logprobs)));
      const work = runOnSequence(ctx, input, stop, events).then(
        (outcome) => {
          if (outcome.aborted && ctx.shutdown.aborted) {
            send(shuttingDown());
            return end();
          }
          // The text is already sent: an answer that fails its schema's check ends with an error, no finish.
          if (outcome.invalid !== undefined) {
            send(invalidStructuredOutput(outcome.invalid, 1));
            return end();
          }
          send(chunk({}, outcome.finishReason, undefined, outcome.stopSequence));
          if (includeUsage)
            send({
              ...chunk({}, null),
              choices: [],
              usage: usageOf(outcome),
            });
          write("data: [DONE]\n\n");
          end();
        },
        (error: unknown) => {
          if (!stop.aborted || ctx.shutdown.aborted) send(errorBody(ctx, error));
          end();
        },
      );
      ctx.track(work);
    },
    cancel() {
      open = false;
      cancelled.abort(new DOMException("the client closed the stream", "AbortError"));
    },
  });
  return new Response(stream, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" },
  });
}
