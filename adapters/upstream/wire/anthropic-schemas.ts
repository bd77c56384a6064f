// Anthropic's Messages API (POST /v1/messages, anthropic-version 2023-06-01) as the platform speaks it
// upstream: the request it sends and the answers it reads, from @anthropic-ai/sdk's types (the pinned
// JSON Schema in tests/inference/anthropic/ checks the fakes against them). Answers are read leniently
// (open objects, fields Anthropic adds later pass): only what the translation uses is required. The
// gateway's own /v1/messages contract (services/inference/anthropic/schemas.ts) is the strict shape it
// answers with; this one is what it sends and must accept from Anthropic.
import { type Static, Type as T } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";

const open = { additionalProperties: true } as const;
const nullableInteger = T.Optional(T.Union([T.Integer(), T.Null()]));

const TextBlockParam = T.Object({ type: T.Literal("text"), text: T.String() });
const ImageBlockParam = T.Object({
  type: T.Literal("image"),
  source: T.Union([
    T.Object({ type: T.Literal("base64"), media_type: T.String(), data: T.String() }),
    T.Object({ type: T.Literal("url"), url: T.String() }),
  ]),
});
const ToolUseBlockParam = T.Object({
  type: T.Literal("tool_use"),
  id: T.String(),
  name: T.String(),
  input: T.Unknown(),
});
const ToolResultBlockParam = T.Object({
  type: T.Literal("tool_result"),
  tool_use_id: T.String(),
  content: T.String(),
  is_error: T.Optional(T.Boolean()),
});
export const ContentBlockParam = T.Union([
  TextBlockParam,
  ImageBlockParam,
  ToolUseBlockParam,
  ToolResultBlockParam,
]);
export type ContentBlockParam = Static<typeof ContentBlockParam>;

export const MessageParam = T.Object({
  role: T.Union([T.Literal("user"), T.Literal("assistant")]),
  content: T.Array(ContentBlockParam),
});
export type MessageParam = Static<typeof MessageParam>;

export const ToolParam = T.Object({
  name: T.String(),
  description: T.Optional(T.String()),
  input_schema: T.Record(T.String(), T.Unknown()),
});
export type ToolParam = Static<typeof ToolParam>;

export const ToolChoiceParam = T.Union([
  T.Object({ type: T.Literal("auto"), disable_parallel_tool_use: T.Optional(T.Boolean()) }),
  T.Object({ type: T.Literal("any"), disable_parallel_tool_use: T.Optional(T.Boolean()) }),
  T.Object({ type: T.Literal("tool"), name: T.String(), disable_parallel_tool_use: T.Optional(T.Boolean()) }),
  T.Object({ type: T.Literal("none") }),
]);
export type ToolChoiceParam = Static<typeof ToolChoiceParam>;

export const MessageCreateParams = T.Object({
  model: T.String(),
  max_tokens: T.Integer({ minimum: 1 }),
  messages: T.Array(MessageParam),
  system: T.Optional(T.String()),
  tools: T.Optional(T.Array(ToolParam)),
  tool_choice: T.Optional(ToolChoiceParam),
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
export type MessageCreateParams = Static<typeof MessageCreateParams>;

/** A content block of an answer: text and tool_use are translated; thinking and others are skipped. */
const ContentBlock = T.Object(
  {
    type: T.String(),
    text: T.Optional(T.String()),
    id: T.Optional(T.String()),
    name: T.Optional(T.String()),
    input: T.Optional(T.Unknown()),
  },
  open,
);
export type ContentBlock = Static<typeof ContentBlock>;

const Usage = T.Object(
  {
    input_tokens: nullableInteger,
    output_tokens: nullableInteger,
    cache_read_input_tokens: nullableInteger,
    cache_creation_input_tokens: nullableInteger,
  },
  open,
);
export type Usage = Static<typeof Usage>;

const stopReason = T.Union([T.String(), T.Null()]);

export const Message = T.Object(
  {
    id: T.String(),
    type: T.Literal("message"),
    model: T.String(),
    content: T.Array(ContentBlock),
    stop_reason: T.Optional(stopReason),
    stop_sequence: T.Optional(T.Union([T.String(), T.Null()])),
    usage: Usage,
  },
  open,
);
export type Message = Static<typeof Message>;

export const ErrorResponse = T.Object(
  { type: T.Literal("error"), error: T.Object({ type: T.String(), message: T.String() }, open) },
  open,
);
export type ErrorResponse = Static<typeof ErrorResponse>;

/** One streamed event's data; event types Anthropic adds later fail the check and are skipped. */
export const StreamEvent = T.Union([
  T.Object({ type: T.Literal("message_start"), message: Message }, open),
  T.Object({ type: T.Literal("content_block_start"), index: T.Integer(), content_block: ContentBlock }, open),
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
      delta: T.Object({ stop_reason: T.Optional(stopReason) }, open),
      usage: T.Optional(Usage),
    },
    open,
  ),
  T.Object({ type: T.Literal("message_stop") }, open),
  T.Object({ type: T.Literal("ping") }, open),
  ErrorResponse,
]);
export type StreamEvent = Static<typeof StreamEvent>;

export const checkMessage = TypeCompiler.Compile(Message);
export const checkError = TypeCompiler.Compile(ErrorResponse);
export const checkStreamEvent = TypeCompiler.Compile(StreamEvent);
