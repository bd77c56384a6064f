import type { Usage } from "#adapters/upstream/sse-relay.ts";

// Chat messages as the gateway handles them, and the up-front token estimate that rate limits charge
// before the model has counted (corrected with the real usage afterwards).

export interface ChatMessage {
  role: string;
  /** Absent on an assistant message that carries only tool calls. */
  content?: string | { type: string; text?: string }[] | null | undefined;
  [key: string]: unknown;
}

export function textOf(message: ChatMessage): string {
  if (typeof message.content === "string") return message.content;
  if (Array.isArray(message.content)) return message.content.map((p) => p.text ?? "").join("");
  return "";
}

/** About four characters a token for English text, plus the few tokens each message's framing costs. */
export function estimatePromptTokens(messages: readonly ChatMessage[]): number {
  let chars = 0;
  for (const m of messages) chars += textOf(m).length;
  return Math.ceil(chars / 4) + messages.length * 4 + 2;
}

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** A chat-completions request body as the lifecycle reads it: the fields it uses, the rest passed on. */
export interface ChatRequestBody {
  model: string;
  messages: ChatMessage[];
  stream?: boolean | undefined;
  stream_options?: { include_usage?: boolean | undefined; [k: string]: unknown } | undefined;
  [key: string]: unknown;
}

/** A chat completion as the engines answer it: what the Responses and Messages translators read. */
export interface ChatAnswer {
  choices?: {
    message?: {
      content?: string | null;
      tool_calls?: { id?: string; function?: { name?: string; arguments?: string } }[];
    };
    finish_reason?: string | null;
    /** vLLM's (and our llama.cpp worker's) field: the stop string that ended the text. */
    stop_reason?: string | number | null;
  }[];
  usage?: Usage;
}
