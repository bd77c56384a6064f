// The OpenAI chat-completions wire format as this worker speaks it: the request it accepts (with the same
// bounds as the inference gateway's schema), the answers and chunks it sends, and the error body.
import { type Static, Type as T, type TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";

const ContentPart = T.Object(
  { type: T.String(), text: T.Optional(T.String()) },
  { additionalProperties: true },
);

const ChatMessage = T.Object(
  {
    role: T.Union([
      T.Literal("system"),
      T.Literal("developer"),
      T.Literal("user"),
      T.Literal("assistant"),
      T.Literal("tool"),
    ]),
    content: T.Union([T.String({ maxLength: 1_000_000 }), T.Array(ContentPart, { maxItems: 256 }), T.Null()]),
    name: T.Optional(T.String({ maxLength: 256 })),
  },
  { additionalProperties: true },
);

const penalty = T.Number({ minimum: -2, maximum: 2 });
const tokenCount = T.Integer({ minimum: 1, maximum: 1_000_000 });

/** Fields not listed (tools, logit_bias, user, ...) are accepted and ignored. */
export const ChatCompletionRequest = T.Object(
  {
    // One model per worker: the name is not checked, as llama.cpp's own server does not check it.
    model: T.Optional(T.String({ maxLength: 256 })),
    messages: T.Array(ChatMessage, { minItems: 1, maxItems: 4096 }),
    stream: T.Optional(T.Union([T.Boolean(), T.Null()])),
    stream_options: T.Optional(
      T.Union([
        T.Object({ include_usage: T.Optional(T.Boolean()) }, { additionalProperties: true }),
        T.Null(),
      ]),
    ),
    temperature: T.Optional(T.Union([T.Number({ minimum: 0, maximum: 2 }), T.Null()])),
    top_p: T.Optional(T.Union([T.Number({ minimum: 0, maximum: 1 }), T.Null()])),
    max_tokens: T.Optional(T.Union([tokenCount, T.Null()])),
    max_completion_tokens: T.Optional(T.Union([tokenCount, T.Null()])),
    stop: T.Optional(
      T.Union([
        T.String({ minLength: 1, maxLength: 256 }),
        T.Array(T.String({ minLength: 1, maxLength: 256 }), { maxItems: 4 }),
        T.Null(),
      ]),
    ),
    n: T.Optional(T.Union([T.Integer({ minimum: 1, maximum: 1 }), T.Null()])),
    presence_penalty: T.Optional(T.Union([penalty, T.Null()])),
    frequency_penalty: T.Optional(T.Union([penalty, T.Null()])),
    seed: T.Optional(T.Union([T.Integer(), T.Null()])),
  },
  { additionalProperties: true },
);
export type ChatCompletionRequest = Static<typeof ChatCompletionRequest>;
export type ChatMessage = Static<typeof ChatMessage>;

const checkRequest = TypeCompiler.Compile(ChatCompletionRequest);

export type Parsed<V> = { ok: true; value: V } | { ok: false; error: ErrorBody };

/** Checks the JSON body; the first problem found becomes a 400 naming the field as OpenAI does (`messages.0.role`). */
export function parseChatRequest(body: unknown): Parsed<ChatCompletionRequest> {
  if (checkRequest.Check(body)) return { ok: true, value: body };
  const first = checkRequest.Errors(body).First();
  const param = first?.path ? first.path.slice(1).replaceAll("/", ".") : null;
  const message = first
    ? `${param || "body"}: ${describe(first.schema, first.message)}`
    : "invalid request body";
  return { ok: false, error: invalidRequest(message, param || null) };
}

/** TypeBox says "Expected union value" for a bad role; name the values allowed instead. */
function describe(schema: TSchema, fallback: string): string {
  const options: unknown[] = Array.isArray(schema.anyOf) ? schema.anyOf : [];
  const literals = options.map((o) => (o as { const?: unknown }).const).filter((v) => typeof v === "string");
  if (literals.length > 0 && literals.length === options.length) {
    return `must be one of ${literals.map((v) => JSON.stringify(v)).join(", ")}`;
  }
  return fallback;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export type FinishReason = "stop" | "length";

export interface ChatCompletion {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: { index: 0; message: { role: "assistant"; content: string }; finish_reason: FinishReason }[];
  usage: Usage;
}

export interface ChatCompletionChunk {
  id: string;
  object: "chat.completion.chunk";
  created: number;
  model: string;
  choices: {
    index: 0;
    delta: { role?: "assistant"; content?: string };
    finish_reason: FinishReason | null;
  }[];
  usage?: Usage;
}

export interface ModelList {
  object: "list";
  data: { id: string; object: "model"; created: number; owned_by: "llama.cpp" }[];
}

export interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export function invalidRequest(
  message: string,
  param: string | null = null,
  code: string | null = null,
): ErrorBody {
  return { error: { message, type: "invalid_request_error", param, code } };
}

export function serverError(message: string, code: string): ErrorBody {
  return { error: { message, type: "server_error", param: null, code } };
}

export function usageOf(promptTokens: number, completionTokens: number): Usage {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
}
