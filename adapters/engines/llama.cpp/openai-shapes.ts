// The OpenAI chat-completions wire format as this worker speaks it: the request it accepts (with the same
// bounds as the inference gateway's schema), the answers and chunks it sends, and the error body.
import { type Static, Type as T, type TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";

const ContentPart = T.Object(
  { type: T.String(), text: T.Optional(T.String()) },
  { additionalProperties: true },
);

const functionName = T.String({ pattern: "^[a-zA-Z0-9_-]{1,64}$" });

/** A call the assistant made in an earlier turn, as the client sends it back. */
const ToolCall = T.Object(
  {
    id: T.String({ minLength: 1, maxLength: 256 }),
    type: T.Literal("function"),
    function: T.Object(
      { name: functionName, arguments: T.String({ maxLength: 1_000_000 }) },
      { additionalProperties: true },
    ),
  },
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
    content: T.Optional(
      T.Union([T.String({ maxLength: 1_000_000 }), T.Array(ContentPart, { maxItems: 256 }), T.Null()]),
    ),
    name: T.Optional(T.String({ maxLength: 256 })),
    /** On assistant messages. */
    tool_calls: T.Optional(T.Union([T.Array(ToolCall, { maxItems: 128 }), T.Null()])),
    /** On tool messages: which call this is the result of. */
    tool_call_id: T.Optional(T.String({ minLength: 1, maxLength: 256 })),
  },
  { additionalProperties: true },
);

const FunctionTool = T.Object(
  {
    type: T.Literal("function"),
    function: T.Object(
      {
        name: functionName,
        description: T.Optional(T.String({ maxLength: 100_000 })),
        /** A JSON Schema; checked by json-schema.ts, which names what it cannot enforce. */
        parameters: T.Optional(T.Record(T.String(), T.Unknown())),
        strict: T.Optional(T.Union([T.Boolean(), T.Null()])),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);

const ToolChoice = T.Union([
  T.Literal("none"),
  T.Literal("auto"),
  T.Literal("required"),
  T.Object(
    {
      type: T.Literal("function"),
      function: T.Object({ name: functionName }, { additionalProperties: true }),
    },
    { additionalProperties: true },
  ),
]);

export const RESPONSE_FORMAT_TYPES = ["text", "json_object", "json_schema"] as const;

const ResponseFormat = T.Union([
  T.Object({ type: T.Literal("text") }, { additionalProperties: true }),
  T.Object({ type: T.Literal("json_object") }, { additionalProperties: true }),
  T.Object(
    {
      type: T.Literal("json_schema"),
      json_schema: T.Object(
        {
          name: functionName,
          description: T.Optional(T.String({ maxLength: 100_000 })),
          schema: T.Optional(T.Record(T.String(), T.Unknown())),
          strict: T.Optional(T.Union([T.Boolean(), T.Null()])),
        },
        { additionalProperties: true },
      ),
    },
    { additionalProperties: true },
  ),
]);

const penalty = T.Number({ minimum: -2, maximum: 2 });
const tokenCount = T.Integer({ minimum: 1, maximum: 1_000_000 });

/**
 * Fields not listed (user, metadata, store, prediction, ...) change nothing an answer holds and are ignored;
 * those that would (n > 1, audio, non-text parts) are refused by refuseUnsupported() below.
 */
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
    tools: T.Optional(T.Union([T.Array(FunctionTool, { maxItems: 128 }), T.Null()])),
    tool_choice: T.Optional(T.Union([ToolChoice, T.Null()])),
    parallel_tool_calls: T.Optional(T.Union([T.Boolean(), T.Null()])),
    response_format: T.Optional(T.Union([ResponseFormat, T.Null()])),
    logprobs: T.Optional(T.Union([T.Boolean(), T.Null()])),
    top_logprobs: T.Optional(T.Union([T.Integer({ minimum: 0, maximum: 20 }), T.Null()])),
    /** Token id (as a string, JSON keys being strings) → added to its logit; -100 bans it. */
    logit_bias: T.Optional(
      T.Union([
        T.Record(T.String({ pattern: "^[0-9]{1,9}$" }), T.Number({ minimum: -100, maximum: 100 })),
        T.Null(),
      ]),
    ),
    /**
     * llama-server's extension, default true: the prompt may reuse what a kept sequence holds. false evaluates
     * it whole (a baseline for measurements, or a caller that wants no reuse).
     */
    cache_prompt: T.Optional(T.Union([T.Boolean(), T.Null()])),
  },
  { additionalProperties: true },
);
export type ChatCompletionRequest = Static<typeof ChatCompletionRequest>;
export type ChatMessage = Static<typeof ChatMessage>;
export type FunctionTool = Static<typeof FunctionTool>;
export type ToolChoice = Static<typeof ToolChoice>;
export type ResponseFormat = Static<typeof ResponseFormat>;

const checkRequest = TypeCompiler.Compile(ChatCompletionRequest);

export type Parsed<V> = { ok: true; value: V } | { ok: false; error: ErrorBody };

/** Checks the JSON body; the first problem found becomes a 400 naming the field as OpenAI does (`messages.0.role`). */
export function parseChatRequest(body: unknown): Parsed<ChatCompletionRequest> {
  const refused = refuseUnsupported(body);
  if (refused) return { ok: false, error: refused };
  if (checkRequest.Check(body)) return { ok: true, value: body };
  const first = checkRequest.Errors(body).First();
  const param = first?.path ? paramOf(first.path) : null;
  const message = first
    ? `${param || "body"}: ${describe(first.schema, first.message)}`
    : "invalid request body";
  return { ok: false, error: invalidRequest(message, param || null) };
}

/** `/messages/0/content/1` → `messages[0].content[1]`, as OpenAI names a field. */
function paramOf(pointer: string): string {
  return pointer
    .slice(1)
    .split("/")
    .map((part, i) => (/^[0-9]+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join("");
}

const TEXT_ONLY = "this model reads text only";

/**
 * What this engine cannot do is refused by name before the schema check, so the message says why rather than
 * which type was expected: several choices, audio, images and files, unknown response formats.
 */
function refuseUnsupported(body: unknown): ErrorBody | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const req = body as Record<string, unknown>;
  if (typeof req.n === "number" && req.n !== 1)
    return invalidRequest(`n must be 1: this engine generates one choice per request (got ${req.n})`, "n");
  if (req.audio != null) return invalidRequest(`audio output is not supported: ${TEXT_ONLY}`, "audio");
  if (Array.isArray(req.modalities) && req.modalities.some((m) => m !== "text"))
    return invalidRequest(`only the "text" modality is supported: ${TEXT_ONLY}`, "modalities");
  if (req.web_search_options != null)
    return invalidRequest("web search is not supported by this engine", "web_search_options");
  const format = req.response_format as { type?: unknown } | null | undefined;
  if (format != null && !RESPONSE_FORMAT_TYPES.includes(format.type as never))
    return invalidRequest(
      `response_format.type must be one of ${RESPONSE_FORMAT_TYPES.map((t) => `"${t}"`).join(", ")} (got ${JSON.stringify(format.type)})`,
      "response_format.type",
    );
  if (req.top_logprobs != null && req.logprobs !== true)
    return invalidRequest("top_logprobs needs logprobs: true", "top_logprobs");
  if (!Array.isArray(req.messages)) return undefined;
  for (const [i, message] of req.messages.entries()) {
    const content = (message as { content?: unknown } | null)?.content;
    if (!Array.isArray(content)) continue;
    for (const [j, part] of content.entries()) {
      const type = (part as { type?: unknown } | null)?.type;
      if (type !== "text")
        return invalidRequest(
          `content parts of type ${JSON.stringify(type)} are not supported: ${TEXT_ONLY}`,
          `messages[${i}].content[${j}]`,
        );
    }
  }
  return undefined;
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
  /** `cached_tokens`: prompt tokens the sequence still held from an earlier request, reused, not evaluated. */
  prompt_tokens_details: { cached_tokens: number };
}

export type FinishReason = "stop" | "length" | "tool_calls";

export interface TokenLogprob {
  token: string;
  logprob: number;
  bytes: number[];
}

export interface ContentLogprob extends TokenLogprob {
  top_logprobs: TokenLogprob[];
}

export interface ChoiceLogprobs {
  content: ContentLogprob[] | null;
  refusal: null;
}

export interface ToolCallOut {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface ChatCompletion {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: {
    index: 0;
    message: { role: "assistant"; content: string | null; tool_calls?: ToolCallOut[]; refusal: null };
    logprobs: ChoiceLogprobs | null;
    finish_reason: FinishReason;
    /** vLLM's field: the `stop` string that ended the text. */
    stop_reason?: string;
  }[];
  usage: Usage;
}

/** A piece of a tool call in a stream: id, type and name in its first chunk, then arguments in pieces. */
export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: "function";
  function: { name?: string; arguments: string };
}

export interface ChatCompletionChunk {
  id: string;
  object: "chat.completion.chunk";
  created: number;
  model: string;
  choices: {
    index: 0;
    delta: { role?: "assistant"; content?: string | null; tool_calls?: ToolCallDelta[] };
    logprobs?: ChoiceLogprobs | null;
    finish_reason: FinishReason | null;
    /** vLLM's field: the `stop` string that ended the text. */
    stop_reason?: string;
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

/** A finished answer that failed its schema's check `attempts` times (never returned as if it passed). */
export function invalidStructuredOutput(why: string, attempts: number): ErrorBody {
  return serverError(
    `the model's answer did not validate against the schema (${attempts === 1 ? "once" : `${attempts} attempts`}): ${why}`,
    "invalid_structured_output",
  );
}

export function usageOf(counts: {
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
}): Usage {
  return {
    prompt_tokens: counts.promptTokens,
    completion_tokens: counts.completionTokens,
    total_tokens: counts.promptTokens + counts.completionTokens,
    prompt_tokens_details: { cached_tokens: counts.cachedTokens },
  };
}
