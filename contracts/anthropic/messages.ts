// POST /v1/messages and /v1/messages/count_tokens as Anthropic's Messages API defines them
// (@anthropic-ai/sdk, resources/messages), the part a self-hosted chat model can serve: text, client
// tools, tool results. One TypeBox schema per shape: the routes validate and document with them, the
// translator (request.ts, answer.ts, stream.ts) takes their Static types. Requests are open objects:
// fields a chat model has no use for (cache_control, thinking, service_tier…) pass and are ignored;
// what it cannot do (images, documents, server tools) is accepted by the schema so that request.ts
// refuses it by name rather than with a schema message.
// The second half is the same API as the platform speaks it upstream (adapters/upstream/wire/anthropic.ts):
// the request it sends to Anthropic and the answers it reads back, leniently (open objects, fields
// Anthropic adds later pass; only what the translation uses is required).
import { type Static, Type as T } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";

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

// Upstream: what the platform sends to Anthropic (anthropic-version 2023-06-01) and reads back. The
// pinned JSON Schema in tests/inference/anthropic/ checks the fakes against @anthropic-ai/sdk's types.

const ImageBlockParam = T.Object({
  type: T.Literal("image"),
  source: T.Union([
    T.Object({ type: T.Literal("base64"), media_type: T.String(), data: T.String() }),
    T.Object({ type: T.Literal("url"), url: T.String() }),
  ]),
});
/** A tool result as the platform sends it: the chat tool message's text. */
const SentToolResultBlockParam = T.Object({
  type: T.Literal("tool_result"),
  tool_use_id: T.String(),
  content: T.String(),
  is_error: T.Optional(T.Boolean()),
});
export const SentContentBlockParam = T.Union([
  TextBlockParam,
  ImageBlockParam,
  ToolUseBlockParam,
  SentToolResultBlockParam,
]);
export type SentContentBlockParam = Static<typeof SentContentBlockParam>;

export const SentMessageParam = T.Object({
  role: T.Union([T.Literal("user"), T.Literal("assistant")]),
  content: T.Array(SentContentBlockParam),
});
export type SentMessageParam = Static<typeof SentMessageParam>;

export const SentTool = T.Object({
  name: T.String(),
  description: T.Optional(T.String()),
  input_schema: T.Record(T.String(), T.Unknown()),
});
export type SentTool = Static<typeof SentTool>;

/** The request the platform sends upstream; `tool_choice` is the gateway's ToolChoice above. */
export const SentMessageCreateParams = T.Object({
  model: T.String(),
  max_tokens: T.Integer({ minimum: 1 }),
  messages: T.Array(SentMessageParam),
  system: T.Optional(T.String()),
  tools: T.Optional(T.Array(SentTool)),
  tool_choice: T.Optional(ToolChoice),
  temperature: T.Optional(T.Number({ minimum: 0, maximum: 1 })),
  top_p: T.Optional(T.Number({ minimum: 0, maximum: 1 })),
  stop_sequences: T.Optional(T.Array(T.String())),
  stream: T.Optional(T.Boolean()),
  /** Structured output (the SDK's OutputConfig.format, JSONOutputFormat). */
  output_config: T.Optional(
    T.Object({
      format: T.Object({ type: T.Literal("json_schema"), schema: T.Record(T.String(), T.Unknown()) }),
    }),
  ),
  metadata: T.Optional(T.Object({ user_id: T.String() })),
});
export type SentMessageCreateParams = Static<typeof SentMessageCreateParams>;

const nullableInteger = T.Optional(T.Union([T.Integer(), T.Null()]));

/** A content block of an upstream answer: text and tool_use are translated; thinking and others are skipped. */
const ReceivedContentBlock = T.Object(
  {
    type: T.String(),
    text: T.Optional(T.String()),
    id: T.Optional(T.String()),
    name: T.Optional(T.String()),
    input: T.Optional(T.Unknown()),
  },
  open,
);
export type ReceivedContentBlock = Static<typeof ReceivedContentBlock>;

const ReceivedUsage = T.Object(
  {
    input_tokens: nullableInteger,
    output_tokens: nullableInteger,
    cache_read_input_tokens: nullableInteger,
    cache_creation_input_tokens: nullableInteger,
  },
  open,
);
export type ReceivedUsage = Static<typeof ReceivedUsage>;

const receivedStopReason = T.Union([T.String(), T.Null()]);

export const ReceivedMessage = T.Object(
  {
    id: T.String(),
    type: T.Literal("message"),
    model: T.String(),
    content: T.Array(ReceivedContentBlock),
    stop_reason: T.Optional(receivedStopReason),
    stop_sequence: T.Optional(T.Union([T.String(), T.Null()])),
    usage: ReceivedUsage,
  },
  open,
);
export type ReceivedMessage = Static<typeof ReceivedMessage>;

export const ReceivedErrorResponse = T.Object(
  { type: T.Literal("error"), error: T.Object({ type: T.String(), message: T.String() }, open) },
  open,
);
export type ReceivedErrorResponse = Static<typeof ReceivedErrorResponse>;

/** One streamed upstream event's data; event types Anthropic adds later fail the check and are skipped. */
export const ReceivedStreamEvent = T.Union([
  T.Object({ type: T.Literal("message_start"), message: ReceivedMessage }, open),
  T.Object(
    { type: T.Literal("content_block_start"), index: T.Integer(), content_block: ReceivedContentBlock },
    open,
  ),
  T.Object(
    {
      type: T.Literal("content_block_delta"),
      index: T.Integer(),
      delta: T.Object(
        { type: T.String(), text: T.Optional(T.String()), partial_json: T.Optional(T.String()) },
        open,
      ),
    },
    open,
  ),
  T.Object({ type: T.Literal("content_block_stop"), index: T.Integer() }, open),
  T.Object(
    {
      type: T.Literal("message_delta"),
      delta: T.Object({ stop_reason: T.Optional(receivedStopReason) }, open),
      usage: T.Optional(ReceivedUsage),
    },
    open,
  ),
  T.Object({ type: T.Literal("message_stop") }, open),
  T.Object({ type: T.Literal("ping") }, open),
  ReceivedErrorResponse,
]);
export type ReceivedStreamEvent = Static<typeof ReceivedStreamEvent>;

export const checkReceivedMessage = TypeCompiler.Compile(ReceivedMessage);
export const checkReceivedError = TypeCompiler.Compile(ReceivedErrorResponse);
export const checkReceivedStreamEvent = TypeCompiler.Compile(ReceivedStreamEvent);
