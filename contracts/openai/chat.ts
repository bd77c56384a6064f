// The OpenAI chat-completions wire contract, written once: the request (as the inference gateway checks it
// and as a model's server such as our llama.cpp worker checks it), the message, tool calls, usage, the answer
// and its stream chunks. Routes document and validate with these schemas; services, the upstream relay, the
// provider translators and the llama.cpp worker read and write the types derived from them.
// This folder is a floor: it imports nothing from routes/, services/, adapters/ or server/.
import { type Static, Type as T, type TSchema } from "@sinclair/typebox";

/** OpenAI accepts null for most optional request fields (llama-server does too); the engine contract follows. */
const nullable = <S extends TSchema>(schema: S) => T.Union([schema, T.Null()]);

const ContentPart = T.Object(
  {
    type: T.String({ description: "`text`, `image_url`, `input_audio`, `file`, `refusal`" }),
    text: T.Optional(T.String()),
  },
  { additionalProperties: true },
);

export const functionName = T.String({ pattern: "^[a-zA-Z0-9_-]{1,64}$" });

/** A call the assistant made, in an answer or sent back by the client in a later turn. */
export const ToolCall = T.Object(
  {
    id: T.String({ minLength: 1, maxLength: 256 }),
    type: T.Literal("function"),
    function: T.Object(
      {
        name: T.String(),
        arguments: T.String({ maxLength: 1_000_000, description: "The arguments as a JSON text" }),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);
export type ToolCall = Static<typeof ToolCall>;

export const CHAT_ROLES = ["system", "developer", "user", "assistant", "tool"] as const;
export type ChatRole = (typeof CHAT_ROLES)[number];

export const ChatMessage = T.Object(
  {
    role: T.Union(CHAT_ROLES.map((role) => T.Literal(role))),
    content: T.Optional(
      T.Union([T.String({ maxLength: 1_000_000 }), T.Array(ContentPart, { maxItems: 256 }), T.Null()], {
        description: "Absent, null or empty on an assistant message that carries only `tool_calls`",
      }),
    ),
    name: T.Optional(T.String({ maxLength: 256 })),
    tool_calls: T.Optional(
      T.Union([T.Array(ToolCall, { maxItems: 128 }), T.Null()], {
        description: "On an assistant message: the calls it made",
      }),
    ),
    tool_call_id: T.Optional(
      T.String({ minLength: 1, maxLength: 256, description: "On a tool message: the call it answers" }),
    ),
    refusal: T.Optional(T.Union([T.String(), T.Null()])),
  },
  { additionalProperties: true },
);
/** One chat message: the one definition every layer uses. Fields OpenAI adds later ride along unchecked. */
export type ChatMessage = Static<typeof ChatMessage> & { [field: string]: unknown };
export type ChatContent = ChatMessage["content"];

export const FunctionTool = T.Object(
  {
    type: T.Literal("function"),
    function: T.Object(
      {
        name: functionName,
        description: T.Optional(T.String({ maxLength: 100_000 })),
        parameters: T.Optional(
          T.Record(T.String(), T.Unknown(), { description: "The arguments' JSON Schema (an object schema)" }),
        ),
        strict: T.Optional(T.Union([T.Boolean(), T.Null()])),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);
export type FunctionTool = Static<typeof FunctionTool>;

export const ToolChoice = T.Union(
  [
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
  ],
  { description: "`none`, `auto` (the default with tools), `required`, or one named function" },
);
export type ToolChoice = Static<typeof ToolChoice>;

export const RESPONSE_FORMAT_TYPES = ["text", "json_object", "json_schema"] as const;

export const ResponseFormat = T.Union([
  T.Object({ type: T.Literal("text") }, { additionalProperties: true }),
  T.Object({ type: T.Literal("json_object") }, { additionalProperties: true }),
  T.Object(
    {
      type: T.Literal("json_schema"),
      json_schema: T.Object(
        {
          name: functionName,
          description: T.Optional(T.String({ maxLength: 100_000 })),
          schema: T.Optional(T.Record(T.String(), T.Unknown(), { description: "The answer's JSON Schema" })),
          strict: T.Optional(T.Union([T.Boolean(), T.Null()])),
        },
        { additionalProperties: true },
      ),
    },
    { additionalProperties: true },
  ),
]);
export type ResponseFormat = Static<typeof ResponseFormat>;

const penalty = T.Number({ minimum: -2, maximum: 2 });
// The gateway's rules as OpenAI clients have met them (tests/inference/gateway-errors.test.ts): no upper
// bound on a token count (the deployment's context bounds it), and an empty stop string is allowed (the
// llama.cpp worker drops it).
const tokenCount = T.Integer({ minimum: 1 });
const stopText = T.String({ maxLength: 256 });
const Stop = T.Union([stopText, T.Array(stopText, { maxItems: 4 })]);
const StreamOptions = T.Object(
  { include_usage: T.Optional(T.Boolean({ description: "A last chunk with `usage`, no choices" })) },
  { additionalProperties: true },
);
const LogitBias = T.Record(T.String({ pattern: "^[0-9]{1,9}$" }), T.Number({ minimum: -100, maximum: 100 }), {
  description: "Token id to a bias from -100 (never) to 100 (always)",
});

/** The sampling and tool fields, as the gateway checks them: each optional, never null. */
const samplingFields = {
  stream: T.Optional(T.Boolean({ default: false, description: "Answer as server-sent events" })),
  stream_options: T.Optional(StreamOptions),
  temperature: T.Optional(T.Number({ minimum: 0, maximum: 2 })),
  top_p: T.Optional(T.Number({ minimum: 0, maximum: 1 })),
  max_tokens: T.Optional(tokenCount),
  max_completion_tokens: T.Optional(tokenCount),
  stop: T.Optional(Stop),
  n: T.Optional(T.Integer({ minimum: 1, maximum: 1, description: "Only 1 is supported" })),
  presence_penalty: T.Optional(penalty),
  frequency_penalty: T.Optional(penalty),
  seed: T.Optional(T.Integer({ description: "The same seed and request give the same answer" })),
  tools: T.Optional(T.Array(FunctionTool, { maxItems: 128 })),
  tool_choice: T.Optional(ToolChoice),
  parallel_tool_calls: T.Optional(T.Boolean()),
  response_format: T.Optional(ResponseFormat),
  logprobs: T.Optional(T.Boolean({ description: "The log probability of each output token" })),
  top_logprobs: T.Optional(
    T.Integer({ minimum: 0, maximum: 20, description: "With logprobs: the most likely alternatives" }),
  ),
  logit_bias: T.Optional(LogitBias),
};

/** POST /v1/chat/completions as the inference gateway checks it. */
export const ChatCompletionRequest = T.Object(
  {
    model: T.String({ minLength: 1, maxLength: 128, description: "The deployment name" }),
    messages: T.Array(ChatMessage, { minItems: 1, maxItems: 4096 }),
    ...samplingFields,
    user: T.Optional(T.String({ maxLength: 256 })),
    metadata: T.Optional(T.Record(T.String(), T.String())),
    store: T.Optional(T.Boolean()),
    reasoning_effort: T.Optional(T.String({ description: "Passed to models that reason" })),
    service_tier: T.Optional(T.String()),
  },
  {
    additionalProperties: true,
    description: "Fields not listed here are passed to the model's server unchanged.",
  },
);
/** The request as the lifecycle reads it: the fields it uses, the rest passed on. */
export type ChatCompletionRequest = Static<typeof ChatCompletionRequest> & {
  messages: ChatMessage[];
  [field: string]: unknown;
};

type Nullable<F> = { [K in keyof F]?: F[K] | null };
/** The engine's request (below): the gateway's fields, each also null, `model` optional, `cache_prompt`. */
export type EngineChatCompletionRequest = Nullable<
  Omit<Static<typeof ChatCompletionRequest>, "model" | "messages">
> & {
  model?: string | undefined;
  messages: ChatMessage[];
  cache_prompt?: boolean | null | undefined;
};

/**
 * The same request as a model's server (our llama.cpp worker) checks it: the same fields, each also
 * accepting null as llama-server does, one model per server (so `model` is optional and not checked),
 * and llama-server's `cache_prompt` extension (default true: the prompt may reuse what a kept sequence
 * holds; false evaluates it whole). Built from the gateway's fields, so the two cannot drift; Unsafe
 * gives the schema the type written above, which TypeBox cannot derive from a mapped set of fields.
 */
export const EngineChatCompletionRequest = T.Unsafe<EngineChatCompletionRequest>(
  T.Object(
    {
      model: T.Optional(T.String({ maxLength: 256 })),
      messages: T.Array(ChatMessage, { minItems: 1, maxItems: 4096 }),
      ...Object.fromEntries(
        Object.entries(samplingFields).map(([name, field]) => [
          name,
          T.Optional(nullable(T.Optional(field, false))),
        ]),
      ),
      cache_prompt: T.Optional(nullable(T.Boolean())),
    },
    { additionalProperties: true },
  ),
);

export const Usage = T.Object({
  prompt_tokens: T.Integer(),
  completion_tokens: T.Integer(),
  total_tokens: T.Integer(),
  prompt_tokens_details: T.Optional(
    T.Union([
      T.Object(
        {
          cached_tokens: T.Optional(
            T.Integer({ description: "Prompt tokens the engine reused (its prefix cache), not evaluated" }),
          ),
        },
        { additionalProperties: true },
      ),
      T.Null(),
    ]),
  ),
});
export type Usage = Static<typeof Usage>;

const TokenLogprob = T.Object({
  token: T.String(),
  logprob: T.Number(),
  bytes: T.Union([T.Array(T.Integer()), T.Null()]),
});
const ContentLogprob = T.Composite([TokenLogprob, T.Object({ top_logprobs: T.Array(TokenLogprob) })]);
export type TokenLogprob = Static<typeof TokenLogprob>;
export type ContentLogprob = Static<typeof ContentLogprob>;

export const ChoiceLogprobs = T.Object(
  { content: T.Union([T.Array(ContentLogprob), T.Null()]), refusal: T.Optional(T.Null()) },
  { additionalProperties: true },
);
export type ChoiceLogprobs = Static<typeof ChoiceLogprobs>;

export const FinishReason = T.Union([
  T.Literal("stop"),
  T.Literal("length"),
  T.Literal("tool_calls"),
  T.Literal("content_filter"),
  T.Null(),
]);
export type FinishReason = Static<typeof FinishReason>;

const stopReason = T.Optional(
  T.Union([T.String(), T.Integer(), T.Null()], {
    description: "vLLM's (and our llama.cpp worker's) field: the stop string that ended the text",
  }),
);

export const ChatCompletion = T.Object(
  {
    id: T.String(),
    object: T.Literal("chat.completion"),
    created: T.Integer(),
    model: T.String({ description: "The deployment name" }),
    choices: T.Array(
      T.Object(
        {
          index: T.Integer(),
          message: T.Object(
            {
              role: T.Literal("assistant"),
              content: T.Union([T.String(), T.Null()]),
              refusal: T.Optional(T.Union([T.String(), T.Null()])),
              tool_calls: T.Optional(T.Array(ToolCall)),
            },
            { additionalProperties: true },
          ),
          logprobs: T.Optional(T.Union([ChoiceLogprobs, T.Null()])),
          finish_reason: FinishReason,
          stop_reason: stopReason,
        },
        { additionalProperties: true },
      ),
    ),
    usage: Usage,
  },
  { additionalProperties: true },
);
export type ChatCompletion = Static<typeof ChatCompletion>;

/** A piece of a tool call in a stream: id, type and name in its first chunk, then arguments in pieces. */
export const ToolCallDelta = T.Object({
  index: T.Integer(),
  id: T.Optional(T.String()),
  type: T.Optional(T.Literal("function")),
  function: T.Optional(
    T.Object({
      name: T.Optional(T.String()),
      arguments: T.Optional(T.String({ description: "The next piece of the JSON text" })),
    }),
  ),
});
export type ToolCallDelta = Static<typeof ToolCallDelta>;

/** One event's `data` of a streamed answer. */
export const ChatCompletionChunk = T.Object(
  {
    id: T.String(),
    object: T.Literal("chat.completion.chunk"),
    created: T.Integer(),
    model: T.String(),
    choices: T.Array(
      T.Object(
        {
          index: T.Integer(),
          delta: T.Object(
            {
              role: T.Optional(T.Literal("assistant")),
              content: T.Optional(T.Union([T.String(), T.Null()])),
              tool_calls: T.Optional(T.Array(ToolCallDelta)),
            },
            { additionalProperties: true },
          ),
          logprobs: T.Optional(T.Union([ChoiceLogprobs, T.Null()])),
          finish_reason: FinishReason,
          stop_reason: stopReason,
        },
        { additionalProperties: true },
      ),
      { description: "Empty in the last chunk that carries `usage` (stream_options.include_usage)" },
    ),
    usage: T.Optional(T.Union([Usage, T.Null()])),
  },
  { additionalProperties: true },
);
export type ChatCompletionChunk = Static<typeof ChatCompletionChunk>;

type CompletionChoice = ChatCompletion["choices"][number];
type Loose<O> = { [K in keyof O]?: O[K] } & { [field: string]: unknown };

/**
 * A chunk as the gateway reads one from a model's server it does not control (vLLM, a provider): every
 * field may be missing, and fields it does not know are passed on.
 */
export type ReceivedChunk = Loose<Omit<ChatCompletionChunk, "choices" | "usage">> & {
  choices?: Loose<ChatCompletionChunk["choices"][number]>[];
  usage?: Usage | null | undefined;
};

/** A chat completion as the gateway reads one from a model's server: what the translators use. */
export type ReceivedCompletion = Loose<Omit<ChatCompletion, "choices" | "usage">> & {
  choices?: (Loose<Omit<CompletionChoice, "message">> & { message?: Loose<CompletionChoice["message"]> })[];
  usage?: Usage | undefined;
};
