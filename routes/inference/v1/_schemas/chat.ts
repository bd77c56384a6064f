// The chat-completions request, as OpenAI clients send it, and the answers as the OpenAPI document
// describes them. Every field OpenAI defines that the platform's engines act on is checked here;
// fields OpenAI adds later are accepted (additionalProperties) and passed to the model's server
// unchanged. The answers are relayed from the model's server, so they are documented, not checked.
import { t } from "elysia";

const ContentPart = t.Object(
  {
    type: t.String({ description: "`text`, `image_url`, `input_audio`, `file`, `refusal`" }),
    text: t.Optional(t.String()),
  },
  { additionalProperties: true },
);

const ToolCall = t.Object(
  {
    id: t.String(),
    type: t.Literal("function"),
    function: t.Object({
      name: t.String(),
      arguments: t.String({ description: "The arguments as a JSON text" }),
    }),
  },
  { additionalProperties: true },
);

export const ChatMessage = t.Object(
  {
    role: t.Union([
      t.Literal("system"),
      t.Literal("developer"),
      t.Literal("user"),
      t.Literal("assistant"),
      t.Literal("tool"),
    ]),
    content: t.Optional(
      t.Union([t.String({ maxLength: 1_000_000 }), t.Array(ContentPart, { maxItems: 256 }), t.Null()], {
        description: "Absent, null or empty on an assistant message that carries only `tool_calls`",
      }),
    ),
    name: t.Optional(t.String({ maxLength: 256 })),
    tool_calls: t.Optional(t.Array(ToolCall, { description: "On an assistant message: the calls it made" })),
    tool_call_id: t.Optional(t.String({ description: "On a tool message: the call it answers" })),
    refusal: t.Optional(t.Union([t.String(), t.Null()])),
  },
  { additionalProperties: true },
);

const FunctionDefinition = t.Object(
  {
    name: t.String({ pattern: "^[a-zA-Z0-9_-]{1,64}$" }),
    description: t.Optional(t.String()),
    parameters: t.Optional(
      t.Record(t.String(), t.Unknown(), { description: "The arguments' JSON Schema (an object schema)" }),
    ),
    strict: t.Optional(t.Union([t.Boolean(), t.Null()])),
  },
  { additionalProperties: true },
);

const Tool = t.Object({ type: t.Literal("function"), function: FunctionDefinition });

const ToolChoice = t.Union(
  [
    t.Literal("none"),
    t.Literal("auto"),
    t.Literal("required"),
    t.Object({ type: t.Literal("function"), function: t.Object({ name: t.String() }) }),
  ],
  { description: "`none`, `auto` (the default with tools), `required`, or one named function" },
);

const ResponseFormat = t.Union([
  t.Object({ type: t.Literal("text") }),
  t.Object({ type: t.Literal("json_object") }),
  t.Object({
    type: t.Literal("json_schema"),
    json_schema: t.Object(
      {
        name: t.String({ pattern: "^[a-zA-Z0-9_-]{1,64}$" }),
        description: t.Optional(t.String()),
        schema: t.Optional(t.Record(t.String(), t.Unknown(), { description: "The answer's JSON Schema" })),
        strict: t.Optional(t.Union([t.Boolean(), t.Null()])),
      },
      { additionalProperties: true },
    ),
  }),
]);

const penalty = t.Number({ minimum: -2, maximum: 2 });
const tokenCount = t.Integer({ minimum: 1 });

export const ChatCompletionRequest = t.Object(
  {
    model: t.String({ minLength: 1, maxLength: 128, description: "The deployment name" }),
    messages: t.Array(ChatMessage, { minItems: 1, maxItems: 4096 }),
    stream: t.Optional(t.Boolean({ default: false, description: "Answer as server-sent events" })),
    stream_options: t.Optional(
      t.Object(
        { include_usage: t.Optional(t.Boolean({ description: "A last chunk with `usage`, no choices" })) },
        { additionalProperties: true },
      ),
    ),
    temperature: t.Optional(t.Number({ minimum: 0, maximum: 2 })),
    top_p: t.Optional(t.Number({ minimum: 0, maximum: 1 })),
    max_tokens: t.Optional(tokenCount),
    max_completion_tokens: t.Optional(tokenCount),
    stop: t.Optional(
      t.Union([t.String({ maxLength: 256 }), t.Array(t.String({ maxLength: 256 }), { maxItems: 4 })]),
    ),
    n: t.Optional(t.Integer({ minimum: 1, maximum: 1, description: "Only 1 is supported" })),
    presence_penalty: t.Optional(penalty),
    frequency_penalty: t.Optional(penalty),
    seed: t.Optional(t.Integer({ description: "The same seed and request give the same answer" })),
    user: t.Optional(t.String({ maxLength: 256 })),
    tools: t.Optional(t.Array(Tool, { maxItems: 128 })),
    tool_choice: t.Optional(ToolChoice),
    parallel_tool_calls: t.Optional(t.Boolean()),
    response_format: t.Optional(ResponseFormat),
    logprobs: t.Optional(t.Boolean({ description: "The log probability of each output token" })),
    top_logprobs: t.Optional(
      t.Integer({ minimum: 0, maximum: 20, description: "With logprobs: the most likely alternatives" }),
    ),
    logit_bias: t.Optional(
      t.Record(t.String({ pattern: "^[0-9]+$" }), t.Number({ minimum: -100, maximum: 100 }), {
        description: "Token id to a bias from -100 (never) to 100 (always)",
      }),
    ),
    metadata: t.Optional(t.Record(t.String(), t.String())),
    store: t.Optional(t.Boolean()),
    reasoning_effort: t.Optional(t.String({ description: "Passed to models that reason" })),
    service_tier: t.Optional(t.String()),
  },
  {
    additionalProperties: true,
    description: "Fields not listed here are passed to the model's server unchanged.",
  },
);

const Usage = t.Object({
  prompt_tokens: t.Integer(),
  completion_tokens: t.Integer(),
  total_tokens: t.Integer(),
  prompt_tokens_details: t.Optional(
    t.Object(
      {
        cached_tokens: t.Optional(
          t.Integer({ description: "Prompt tokens the engine reused (its prefix cache)" }),
        ),
      },
      { additionalProperties: true },
    ),
  ),
});

const TokenLogprob = t.Object({
  token: t.String(),
  logprob: t.Number(),
  bytes: t.Union([t.Array(t.Integer()), t.Null()]),
  top_logprobs: t.Array(
    t.Object({ token: t.String(), logprob: t.Number(), bytes: t.Union([t.Array(t.Integer()), t.Null()]) }),
  ),
});

const Logprobs = t.Union([
  t.Object({ content: t.Union([t.Array(TokenLogprob), t.Null()]) }, { additionalProperties: true }),
  t.Null(),
]);

const FinishReason = t.Union([
  t.Literal("stop"),
  t.Literal("length"),
  t.Literal("tool_calls"),
  t.Literal("content_filter"),
  t.Null(),
]);

export const ChatCompletionResponse = t.Object(
  {
    id: t.String(),
    object: t.Literal("chat.completion"),
    created: t.Integer(),
    model: t.String({ description: "The deployment name" }),
    choices: t.Array(
      t.Object(
        {
          index: t.Integer(),
          message: t.Object(
            {
              role: t.Literal("assistant"),
              content: t.Union([t.String(), t.Null()]),
              refusal: t.Optional(t.Union([t.String(), t.Null()])),
              tool_calls: t.Optional(t.Array(ToolCall)),
            },
            { additionalProperties: true },
          ),
          logprobs: t.Optional(Logprobs),
          finish_reason: FinishReason,
        },
        { additionalProperties: true },
      ),
    ),
    usage: Usage,
  },
  { additionalProperties: true },
);

/** One event's `data` of a streamed answer. */
export const ChatCompletionChunk = t.Object(
  {
    id: t.String(),
    object: t.Literal("chat.completion.chunk"),
    created: t.Integer(),
    model: t.String(),
    choices: t.Array(
      t.Object(
        {
          index: t.Integer(),
          delta: t.Object(
            {
              role: t.Optional(t.Literal("assistant")),
              content: t.Optional(t.Union([t.String(), t.Null()])),
              tool_calls: t.Optional(
                t.Array(
                  t.Object({
                    index: t.Integer(),
                    id: t.Optional(t.String()),
                    type: t.Optional(t.Literal("function")),
                    function: t.Optional(
                      t.Object({
                        name: t.Optional(t.String()),
                        arguments: t.Optional(t.String({ description: "The next piece of the JSON text" })),
                      }),
                    ),
                  }),
                ),
              ),
            },
            { additionalProperties: true },
          ),
          logprobs: t.Optional(Logprobs),
          finish_reason: FinishReason,
        },
        { additionalProperties: true },
      ),
      { description: "Empty in the last chunk that carries `usage` (stream_options.include_usage)" },
    ),
    usage: t.Optional(t.Union([Usage, t.Null()])),
  },
  { additionalProperties: true },
);
