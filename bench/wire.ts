// The few wire shapes the benches read, as schemas: what a worker prints when it starts, and the
// fields of a chat stream chunk the benches time and count (loose: null where OpenAI sends null).
import { type Static, Type as T } from "@sinclair/typebox";
import { jsonParser } from "../scripts/checked.ts";

/** The worker's first line on stdout: {"event":"ready","port":N} or {"event":"fatal","reason":…}. */
export const WorkerLine = T.Object({
  event: T.String(),
  port: T.Optional(T.Number()),
  reason: T.Optional(T.String()),
});
export const parseWorkerLine = jsonParser(WorkerLine, "worker line");

const Usage = T.Object({
  prompt_tokens: T.Number(),
  completion_tokens: T.Number(),
  prompt_tokens_details: T.Optional(T.Union([T.Object({ cached_tokens: T.Optional(T.Number()) }), T.Null()])),
});

/** A chat.completion.chunk as far as the benches read it, or the error a stream ends with. */
export const StreamChunk = T.Object({
  choices: T.Optional(
    T.Array(
      T.Object({ delta: T.Optional(T.Object({ content: T.Optional(T.Union([T.String(), T.Null()])) })) }),
    ),
  ),
  usage: T.Optional(T.Union([Usage, T.Null()])),
  error: T.Optional(T.Object({ message: T.String() })),
});
export const parseStreamChunk = jsonParser(StreamChunk, "stream chunk");

/** The chunks of a chat stream's SSE body as they arrive; events without data and `[DONE]` skipped. */
export async function* streamChunks(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<Static<typeof StreamChunk>> {
  const decoder = new TextDecoder();
  let buffer = "";
  const reader = body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    buffer += decoder.decode(read.value, { stream: true });
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf("\n\n");
      const data = event
        .split("\n")
        .find((line) => line.startsWith("data: "))
        ?.slice(6);
      if (data && data !== "[DONE]") yield parseStreamChunk(data);
    }
  }
}
