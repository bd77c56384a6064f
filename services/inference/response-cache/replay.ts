// An answer kept once and given back in either framing the caller asks for: a streamed answer is put
// together from its chunks into one chat.completion (what the cache stores), and a stored
// chat.completion is replayed as chat-completions SSE chunks (role, content, tool calls, finish, usage
// when asked, [DONE]), the same framing the relay sends; /v1/responses, /v1/messages and
// /v1/completions translate that stream as they translate a live one (services/inference/chat-stream.ts).

import type { ReceivedChunk, Usage } from "#contracts/openai/chat.ts";

interface ToolCall {
  index?: number;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}

export type CachedMessage = {
  role: string;
  content: string | null;
  tool_calls?: ToolCall[] | undefined;
  [field: string]: unknown;
};

/** The stored answer: OpenAI's chat.completion object (a plain answer as the model sent it). */
export type CachedAnswer = {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: { index: number; message: CachedMessage; logprobs?: unknown; finish_reason: string | null }[];
  usage?: Usage | undefined;
  system_fingerprint?: string | null | undefined;
  [field: string]: unknown;
};

/** Puts a streamed answer together, chunk by chunk, as the client received it. */
export class ChunkAssembler {
  private id = "";
  private created = 0;
  private fingerprint: string | null | undefined;
  private usage: Usage | undefined;
  private readonly choices = new Map<number, { message: CachedMessage; finish: string | null }>();

  add(chunk: ReceivedChunk): void {
    if (typeof chunk.id === "string") this.id ||= chunk.id;
    if (typeof chunk.created === "number") this.created ||= chunk.created;
    if (typeof chunk.system_fingerprint === "string") this.fingerprint = chunk.system_fingerprint;
    if (chunk.usage) this.usage = chunk.usage;
    for (const choice of chunk.choices ?? []) {
      const index = choice.index ?? 0;
      let slot = this.choices.get(index);
      if (!slot) {
        slot = { message: { role: "assistant", content: null }, finish: null };
        this.choices.set(index, slot);
      }
      const delta = choice.delta;
      if (delta?.role) slot.message.role = delta.role;
      if (typeof delta?.content === "string")
        slot.message.content = (slot.message.content ?? "") + delta.content;
      for (const raw of (delta?.tool_calls ?? []) as ToolCall[]) mergeToolCall(slot.message, raw);
      if (choice.finish_reason) slot.finish = choice.finish_reason;
    }
  }

  /** The whole answer, or undefined when some choice never finished (a cut stream is not kept). */
  answer(model: string, usage: Usage | undefined): CachedAnswer | undefined {
    const choices = [...this.choices.entries()].sort(([a], [b]) => a - b);
    if (choices.length === 0 || choices.some(([, c]) => !c.finish)) return undefined;
    return {
      id: this.id || `chatcmpl-${crypto.randomUUID()}`,
      object: "chat.completion",
      created: this.created || Math.floor(Date.now() / 1000),
      model,
      choices: choices.map(([index, c]) => ({
        index,
        message: c.message,
        logprobs: null,
        finish_reason: c.finish,
      })),
      ...((usage ?? this.usage) ? { usage: usage ?? this.usage } : {}),
      ...(this.fingerprint !== undefined ? { system_fingerprint: this.fingerprint } : {}),
    };
  }
}

function mergeToolCall(message: CachedMessage, raw: ToolCall): void {
  message.tool_calls ??= [];
  const index = raw.index ?? message.tool_calls.length;
  let call = message.tool_calls.find((c) => c.index === index);
  if (!call) {
    call = { index, function: { name: "", arguments: "" } };
    message.tool_calls.push(call);
  }
  if (raw.id) call.id = raw.id;
  if (raw.type) call.type = raw.type;
  if (raw.function?.name) call.function = { ...call.function, name: raw.function.name };
  if (raw.function?.arguments)
    call.function = {
      ...call.function,
      arguments: (call.function?.arguments ?? "") + raw.function.arguments,
    };
}

/** A stored answer given back as a plain response: a new id and time, the caller's model name. */
export function replayJson(answer: CachedAnswer, model: string): CachedAnswer {
  return {
    ...answer,
    id: `chatcmpl-${crypto.randomUUID()}`,
    created: Math.floor(Date.now() / 1000),
    model,
    choices: answer.choices.map((c) => ({
      ...c,
      message: {
        ...c.message,
        // The stored call index is the stream's; a plain answer's tool calls carry none.
        ...(c.message.tool_calls
          ? { tool_calls: c.message.tool_calls.map(({ index: _, ...call }) => call) }
          : {}),
      },
    })),
  };
}

const encoder = new TextEncoder();
const event = (data: unknown) => encoder.encode(`data: ${JSON.stringify(data)}\n\n`);

/** A stored answer given back as the chat-completions stream a live answer would have been. */
export function replayStream(
  answer: CachedAnswer,
  model: string,
  includeUsage: boolean,
): ReadableStream<Uint8Array> {
  const id = `chatcmpl-${crypto.randomUUID()}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], extra: object = {}) => ({
    id,
    object: "chat.completion.chunk",
    created,
    model,
    ...(answer.system_fingerprint !== undefined ? { system_fingerprint: answer.system_fingerprint } : {}),
    choices,
    ...extra,
  });
  const events: Uint8Array[] = [];
  for (const choice of answer.choices) {
    const { role, content, tool_calls } = choice.message;
    const index = choice.index;
    events.push(event(chunk([{ index, delta: { role, content: "" }, logprobs: null, finish_reason: null }])));
    if (content)
      events.push(event(chunk([{ index, delta: { content }, logprobs: null, finish_reason: null }])));
    if (tool_calls?.length) {
      const calls = tool_calls.map((call, i) => ({ ...call, index: call.index ?? i }));
      events.push(
        event(chunk([{ index, delta: { tool_calls: calls }, logprobs: null, finish_reason: null }])),
      );
    }
    events.push(event(chunk([{ index, delta: {}, logprobs: null, finish_reason: choice.finish_reason }])));
  }
  if (includeUsage && answer.usage) events.push(event(chunk([], { usage: answer.usage })));
  events.push(encoder.encode("data: [DONE]\n\n"));
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const e of events) controller.enqueue(e);
      controller.close();
    },
  });
}
