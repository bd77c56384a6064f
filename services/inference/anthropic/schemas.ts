// POST /v1/messages and /v1/messages/count_tokens as Anthropic's Messages API defines them
// (@anthropic-ai/sdk, resources/messages), the part a self-hosted chat model can serve: text, client
// tools, tool results. One TypeBox schema per shape: the routes validate and document with them, the
// translator (request.ts, answer.ts, stream.ts) takes their Static types. Requests are open objects:
// fields a chat model has no use for (cache_control, thinking, service_tier…) pass and are ignored;
// what it cannot do (images, documents, server tools) is accepted by the schema so that request.ts
// refuses it by name rather than with a schema message.
import { type Static, Type as T } from "@sinclair/typebox";

const open = { additionalProperties: true } as const;
const text = T.String({ maxLength: 1_000_000 });
const name = T.String({ minLength: 1, maxLength: 256 });

export const TextBlockParam = T.Object({ type: T.Literal("text"), text }, open);
export type TextBlockParam = Static<typeof TextBlockParam>;

/** Image and document blocks: in the schema so that the translator can refuse them by name. */
const MediaBlockParam = T.Object(
  { type: T.Union([T.Literal("image"), T.Literal("document")]) },
  { ...open, description: "Refused: image and document blocks are not supported" },
);

export const ToolUseBlockParam = T.Object(
  { type: T.Literal("tool_use"), id: T.String({ minLength: 1, maxLength: 256 }), name, input: T.Unknown() },
  open,
);
export type ToolUseBlockParam = Static<typeof ToolUseBlockParam>;

export const ToolResultBlockParam = T.Object(
  {
    type: T.Literal("tool_result"),
    tool_use_id: T.String({ minLength: 1, maxLength: 256 }),
    content: T.Optional(
      T.Union([text, T.Array(T.Union([TextBlockParam, MediaBlockParam]), { maxItems: 256 })]),
    ),
    is_error: T.Optional(T.Boolean()),
  },
  open,
);
export type ToolResultBlockParam = Static<typeof ToolResultBlockParam>;

/** Blocks a model of ours never writes (thinking) come back in assistant turns only if a client made them. */
const OtherBlockParam = T.Object(
  {
    type: T.Union([
      T.Literal("thinking"),
      T.Literal("redacted_thinking"),
      T.Literal("server_tool_use"),
      T.Literal("web_search_tool_result"),
      T.Literal("search_result"),
    ]),
  },
  open,
);

export const ContentBlockParam = T.Union([
  TextBlockParam,
  ToolUseBlockParam,
  ToolResultBlockParam,
  MediaBlockParam,
  OtherBlockParam,
]);
export type ContentBlockParam = Static<typeof ContentBlockParam>;

export const MessageParam = T.Object(
  {
    role: T.Union([T.Literal("user"), T.Literal("assistant")]),
    content: T.Union([text, T.Array(ContentBlockParam, { maxItems: 4096 })]),
  },
  open,
);
export type MessageParam = Static<typeof MessageParam>;

export const Tool = T.Object(
  {
    name,
    description: T.Optional(text),
    input_schema: T.Optional(T.Record(T.String(), T.Unknown())),
    /** Absent or `custom` for a client tool; anything else is one of Anthropic's server tools. */
    type: T.Optional(T.Union([T.String({ maxLength: 128 }), T.Null()])),
  },
  open,
);
export type Tool = Static<typeof Tool>;

export const ToolChoice = T.Union([
  T.Object({ type: T.Literal("auto"), disable_parallel_tool_use: T.Optional(T.Boolean()) }, open),
  T.Object({ type: T.Literal("any"), disable_parallel_tool_use: T.Optional(T.Boolean()) }, open),
  T.Object({ type: T.Literal("tool"), name, disable_parallel_tool_use: T.Optional(T.Boolean()) }, open),
  T.Object({ type: T.Literal("none") }, open),
]);
export type ToolChoice = Static<typeof ToolChoice>;

const System = T.Union([text, T.Array(TextBlockParam, { maxItems: 256 })]);

/** What count_tokens and create share: the prompt. */
const promptFields = {
  model: T.String({ minLength: 1, maxLength: 128, description: "The deployment name" }),
  messages: T.Array(MessageParam, { minItems: 1, maxItems: 4096 }),
  system: T.Optional(System),
  tools: T.Optional(T.Array(Tool, { maxItems: 256 })),
  tool_choice: T.Optional(ToolChoice),
};

export const MessageCreateParams = T.Object(
  {
    ...promptFields,
    max_tokens: T.Integer({ minimum: 1, maximum: 1_000_000 }),
    stop_sequences: T.Optional(
      T.Array(T.String({ minLength: 1, maxLength: 256 }), {
        maxItems: 4,
        description: "At most 4, as the engines take them (OpenAI's `stop`)",
      }),
    ),
    temperature: T.Optional(T.Number({ minimum: 0, maximum: 1 })),
    top_p: T.Optional(T.Number({ minimum: 0, maximum: 1 })),
    top_k: T.Optional(T.Integer({ minimum: 0 })),
    stream: T.Optional(T.Boolean()),
    output_config: T.Optional(
      T.Object(
        {
          format: T.Optional(
            T.Union([
              T.Object(
                { type: T.Literal("json_schema"), schema: T.Record(T.String(), T.Unknown()) },
                { ...open, description: "Structured output: the text answer is JSON valid against `schema`" },
              ),
              T.Null(),
            ]),
          ),
        },
        open,
      ),
    ),
    metadata: T.Optional(
      T.Object({ user_id: T.Optional(T.Union([T.String({ maxLength: 256 }), T.Null()])) }, open),
    ),
  },
  open,
);
export type MessageCreateParams = Static<typeof MessageCreateParams>;

export const MessageCountTokensParams = T.Object(promptFields, open);
export type MessageCountTokensParams = Static<typeof MessageCountTokensParams>;

// The answers, as the SDK's types spell them (tests/inference/anthropic validates them against the
// schema derived from those types): every field present, null where there is nothing to say.

export const TextBlock = T.Object({ type: T.Literal("text"), text: T.String(), citations: T.Null() });
export type TextBlock = Static<typeof TextBlock>;

export const ToolUseBlock = T.Object({
  type: T.Literal("tool_use"),
  id: T.String(),
  name: T.String(),
  input: T.Unknown(),
  caller: T.Object({ type: T.Literal("direct") }),
});
export type ToolUseBlock = Static<typeof ToolUseBlock>;

export const ContentBlock = T.Union([TextBlock, ToolUseBlock]);
export type ContentBlock = Static<typeof ContentBlock>;

export const StopReason = T.Union([
  T.Literal("end_turn"),
  T.Literal("max_tokens"),
  T.Literal("stop_sequence"),
  T.Literal("tool_use"),
  T.Literal("refusal"),
]);
export type StopReason = Static<typeof StopReason>;

export const Usage = T.Object({
  input_tokens: T.Integer(),
  output_tokens: T.Integer(),
  cache_creation_input_tokens: T.Integer(),
  cache_read_input_tokens: T.Integer(),
  cache_creation: T.Null(),
  inference_geo: T.Null(),
  output_tokens_details: T.Null(),
  server_tool_use: T.Null(),
  service_tier: T.Literal("standard"),
  speed: T.Null(),
});
export type Usage = Static<typeof Usage>;

export const Message = T.Object({
  id: T.String(),
  type: T.Literal("message"),
  role: T.Literal("assistant"),
  model: T.String(),
  content: T.Array(ContentBlock),
  stop_reason: T.Union([StopReason, T.Null()]),
  stop_sequence: T.Union([T.String(), T.Null()]),
  stop_details: T.Null(),
  container: T.Null(),
  diagnostics: T.Null(),
  usage: Usage,
});
export type Message = Static<typeof Message>;

export const MessageTokensCount = T.Object({ input_tokens: T.Integer({ minimum: 0 }) });
export type MessageTokensCount = Static<typeof MessageTokensCount>;

export const MessageDeltaUsage = T.Object({
  input_tokens: T.Integer(),
  output_tokens: T.Integer(),
  cache_creation_input_tokens: T.Integer(),
  cache_read_input_tokens: T.Integer(),
  output_tokens_details: T.Null(),
  server_tool_use: T.Null(),
});
export type MessageDeltaUsage = Static<typeof MessageDeltaUsage>;

export const ErrorType = T.Union([
  T.Literal("invalid_request_error"),
  T.Literal("authentication_error"),
  T.Literal("permission_error"),
  T.Literal("not_found_error"),
  T.Literal("request_too_large"),
  T.Literal("rate_limit_error"),
  T.Literal("timeout_error"),
  T.Literal("api_error"),
  T.Literal("overloaded_error"),
]);
export type ErrorType = Static<typeof ErrorType>;

export const ErrorResponse = T.Object({
  type: T.Literal("error"),
  error: T.Object({ type: ErrorType, message: T.String() }),
  request_id: T.Union([T.String(), T.Null()]),
});
export type ErrorResponse = Static<typeof ErrorResponse>;

/** One server-sent event's data (its `event:` line repeats `type`). */
export const MessageStreamEvent = T.Union([
  T.Object({ type: T.Literal("message_start"), message: Message }),
  T.Object({ type: T.Literal("content_block_start"), index: T.Integer(), content_block: ContentBlock }),
  T.Object({
    type: T.Literal("content_block_delta"),
    index: T.Integer(),
    delta: T.Union([
      T.Object({ type: T.Literal("text_delta"), text: T.String() }),
      T.Object({ type: T.Literal("input_json_delta"), partial_json: T.String() }),
    ]),
  }),
  T.Object({ type: T.Literal("content_block_stop"), index: T.Integer() }),
  T.Object({
    type: T.Literal("message_delta"),
    delta: T.Object({
      stop_reason: T.Union([StopReason, T.Null()]),
      stop_sequence: T.Union([T.String(), T.Null()]),
      stop_details: T.Null(),
      container: T.Null(),
    }),
    usage: MessageDeltaUsage,
  }),
  T.Object({ type: T.Literal("message_stop") }),
  T.Object({ type: T.Literal("ping") }),
  ErrorResponse,
]);
export type MessageStreamEvent = Static<typeof MessageStreamEvent>;
