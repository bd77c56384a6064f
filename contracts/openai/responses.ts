// POST /v1/responses as OpenAI's Responses API defines it (openai npm SDK, resources/responses), the
// part a self-hosted chat model can serve: text and function tools. One TypeBox schema per shape; the
// route validates with them, the OpenAPI document shows them, the services take their Static types.
// Fields we do not interpret pass validation and are refused or ignored by name in request.ts.
import { type Static, Type as T } from "@sinclair/typebox";

const open = { additionalProperties: true } as const;
const text = T.String({ maxLength: 1_000_000 });

export const InputText = T.Object({ type: T.Literal("input_text"), text }, open);
export const OutputText = T.Object(
  {
    type: T.Literal("output_text"),
    text,
    annotations: T.Optional(T.Array(T.Unknown())),
    logprobs: T.Optional(T.Array(T.Unknown())),
  },
  open,
);
const InputImage = T.Object(
  {
    type: T.Literal("input_image"),
    image_url: T.Optional(T.String({ maxLength: 20_000_000 })),
    detail: T.Optional(T.String()),
  },
  { ...open, description: "Passed to the model's server as a chat image_url part (it may refuse it)" },
);
const Refusal = T.Object({ type: T.Literal("refusal"), refusal: text }, open);
export const ContentPart = T.Union([InputText, OutputText, InputImage, Refusal]);
export type ContentPart = Static<typeof ContentPart>;

export const MessageItem = T.Object(
  {
    type: T.Optional(T.Literal("message")),
    id: T.Optional(T.String({ maxLength: 256 })),
    role: T.Union([T.Literal("user"), T.Literal("system"), T.Literal("developer"), T.Literal("assistant")]),
    content: T.Union([text, T.Array(ContentPart, { maxItems: 256 })]),
    status: T.Optional(T.String()),
  },
  open,
);
export type MessageItem = Static<typeof MessageItem>;

export const FunctionCallItem = T.Object(
  {
    type: T.Literal("function_call"),
    id: T.Optional(T.String({ maxLength: 256 })),
    call_id: T.String({ maxLength: 256 }),
    name: T.String({ maxLength: 256 }),
    arguments: text,
    status: T.Optional(T.String()),
  },
  open,
);
export type FunctionCallItem = Static<typeof FunctionCallItem>;

export const FunctionCallOutputItem = T.Object(
  {
    type: T.Literal("function_call_output"),
    id: T.Optional(T.String({ maxLength: 256 })),
    call_id: T.String({ maxLength: 256 }),
    output: T.Union([text, T.Array(ContentPart, { maxItems: 256 })]),
    status: T.Optional(T.String()),
  },
  open,
);
export type FunctionCallOutputItem = Static<typeof FunctionCallOutputItem>;

/** An item of an earlier stored response, by its id (what the AI SDK sends when `store` is on). */
export const ItemReference = T.Object(
  { type: T.Literal("item_reference"), id: T.String({ maxLength: 256 }) },
  open,
);
export type ItemReference = Static<typeof ItemReference>;

export const InputItem = T.Union([MessageItem, FunctionCallItem, FunctionCallOutputItem, ItemReference]);
export type InputItem = Static<typeof InputItem>;
/** What a conversation holds once item references are resolved. */
export const ConversationItem = T.Union([MessageItem, FunctionCallItem, FunctionCallOutputItem]);
export type ConversationItem = Static<typeof ConversationItem>;

export const FunctionTool = T.Object(
  {
    type: T.Literal("function"),
    name: T.String({ minLength: 1, maxLength: 64 }),
    description: T.Optional(T.Union([T.String({ maxLength: 100_000 }), T.Null()])),
    parameters: T.Optional(T.Union([T.Record(T.String(), T.Unknown()), T.Null()])),
    strict: T.Optional(T.Union([T.Boolean(), T.Null()])),
  },
  open,
);
export type FunctionTool = Static<typeof FunctionTool>;

export const ToolChoice = T.Union([
  T.Literal("auto"),
  T.Literal("none"),
  T.Literal("required"),
  T.Object({ type: T.Literal("function"), name: T.String({ maxLength: 64 }) }, open),
]);
export type ToolChoice = Static<typeof ToolChoice>;

export const TextFormat = T.Union([
  T.Object({ type: T.Literal("text") }, open),
  T.Object({ type: T.Literal("json_object") }, open),
  T.Object(
    {
      type: T.Literal("json_schema"),
      name: T.String({ minLength: 1, maxLength: 64 }),
      schema: T.Record(T.String(), T.Unknown()),
      description: T.Optional(T.String()),
      strict: T.Optional(T.Union([T.Boolean(), T.Null()])),
    },
    open,
  ),
]);
export type TextFormat = Static<typeof TextFormat>;

export const ResponsesRequest = T.Object(
  {
    model: T.String({ minLength: 1, maxLength: 128, description: "The deployment name" }),
    input: T.Union([text, T.Array(InputItem, { maxItems: 4096 })]),
    instructions: T.Optional(T.Union([text, T.Null()])),
    tools: T.Optional(T.Array(FunctionTool, { maxItems: 128 })),
    tool_choice: T.Optional(ToolChoice),
    parallel_tool_calls: T.Optional(T.Union([T.Boolean(), T.Null()])),
    text: T.Optional(T.Object({ format: T.Optional(TextFormat) }, open)),
    max_output_tokens: T.Optional(T.Union([T.Integer({ minimum: 1, maximum: 1_000_000 }), T.Null()])),
    temperature: T.Optional(T.Union([T.Number({ minimum: 0, maximum: 2 }), T.Null()])),
    top_p: T.Optional(T.Union([T.Number({ minimum: 0, maximum: 1 }), T.Null()])),
    stream: T.Optional(T.Union([T.Boolean(), T.Null()])),
    store: T.Optional(T.Union([T.Boolean(), T.Null()], { description: "Default true: kept until deleted" })),
    previous_response_id: T.Optional(T.Union([T.String({ maxLength: 256 }), T.Null()])),
    metadata: T.Optional(T.Union([T.Record(T.String(), T.String({ maxLength: 512 })), T.Null()])),
    user: T.Optional(T.String({ maxLength: 256 })),
    // Accepted by the schema so that request.ts refuses each by name (what a chat model cannot do).
    background: T.Optional(
      T.Unknown({ description: "Refused when true: background responses are not supported" }),
    ),
    conversation: T.Optional(T.Unknown({ description: "Refused: use previous_response_id" })),
    prompt: T.Optional(T.Unknown({ description: "Refused: templates are per deployment" })),
    include: T.Optional(T.Unknown({ description: "Refused when not empty: no extra fields are kept" })),
    top_logprobs: T.Optional(T.Unknown({ description: "Refused when above 0" })),
    truncation: T.Optional(T.Unknown({ description: 'Only "disabled" (the default)' })),
  },
  open,
);
export type ResponsesRequest = Static<typeof ResponsesRequest>;

export const FunctionCallOutput = T.Object({
  id: T.String(),
  type: T.Literal("function_call"),
  call_id: T.String(),
  name: T.String(),
  arguments: T.String(),
  status: T.Union([T.Literal("in_progress"), T.Literal("completed"), T.Literal("incomplete")]),
});
export type FunctionCallOutput = Static<typeof FunctionCallOutput>;

export const MessageOutput = T.Object({
  id: T.String(),
  type: T.Literal("message"),
  role: T.Literal("assistant"),
  status: T.Union([T.Literal("in_progress"), T.Literal("completed"), T.Literal("incomplete")]),
  content: T.Array(
    T.Object({
      type: T.Literal("output_text"),
      text: T.String(),
      annotations: T.Array(T.Unknown()),
      logprobs: T.Array(T.Unknown()),
    }),
  ),
});
export type MessageOutput = Static<typeof MessageOutput>;
export type OutputItem = MessageOutput | FunctionCallOutput;

export const ResponseUsage = T.Object({
  input_tokens: T.Integer(),
  input_tokens_details: T.Object({
    cached_tokens: T.Integer(),
    cache_write_tokens: T.Integer({
      description: "Always 0: the engines' prefix caches cost nothing to write",
    }),
  }),
  output_tokens: T.Integer(),
  output_tokens_details: T.Object({ reasoning_tokens: T.Integer() }),
  total_tokens: T.Integer(),
});
export type ResponseUsage = Static<typeof ResponseUsage>;

export const ResponseObject = T.Object({
  id: T.String(),
  object: T.Literal("response"),
  created_at: T.Integer(),
  completed_at: T.Union([T.Integer(), T.Null()]),
  status: T.Union([
    T.Literal("in_progress"),
    T.Literal("completed"),
    T.Literal("incomplete"),
    T.Literal("failed"),
  ]),
  error: T.Union([T.Object({ code: T.String(), message: T.String() }), T.Null()]),
  incomplete_details: T.Union([T.Object({ reason: T.String() }), T.Null()]),
  instructions: T.Union([T.String(), T.Null()]),
  max_output_tokens: T.Union([T.Integer(), T.Null()]),
  model: T.String(),
  output: T.Array(T.Union([MessageOutput, FunctionCallOutput])),
  parallel_tool_calls: T.Boolean(),
  previous_response_id: T.Union([T.String(), T.Null()]),
  reasoning: T.Object({ effort: T.Null(), summary: T.Null() }),
  store: T.Boolean(),
  temperature: T.Union([T.Number(), T.Null()]),
  top_p: T.Union([T.Number(), T.Null()]),
  text: T.Object({ format: T.Unknown() }),
  tool_choice: T.Unknown(),
  tools: T.Array(T.Unknown()),
  truncation: T.Literal("disabled"),
  // Absent until the model has answered (OpenAI's document: an object or nothing, never null).
  usage: T.Optional(ResponseUsage),
  metadata: T.Record(T.String(), T.String()),
  // Absent unless the request named one (a string or nothing, never null).
  user: T.Optional(T.String()),
});
export type ResponseObject = Static<typeof ResponseObject>;

const ItemStatus = T.Union([T.Literal("in_progress"), T.Literal("completed"), T.Literal("incomplete")]);
const InputContent = T.Union([
  T.Object({ type: T.Literal("input_text"), text: T.String() }),
  T.Object({
    type: T.Literal("input_image"),
    image_url: T.Union([T.String(), T.Null()]),
    detail: T.Union(["low", "high", "auto", "original"].map((d) => T.Literal(d))),
  }),
]);
export type InputContent = Static<typeof InputContent>;

/** An item a response answered, as GET /v1/responses/{id}/input_items lists it (OpenAI's ItemResource). */
export const ItemResource = T.Union([
  T.Object({
    id: T.String(),
    type: T.Literal("message"),
    role: T.Union([T.Literal("user"), T.Literal("system"), T.Literal("developer")]),
    content: T.Array(InputContent),
    status: ItemStatus,
  }),
  T.Object({
    id: T.String(),
    type: T.Literal("message"),
    role: T.Literal("assistant"),
    content: T.Array(
      T.Union([
        T.Object({
          type: T.Literal("output_text"),
          text: T.String(),
          annotations: T.Array(T.Unknown()),
          logprobs: T.Array(T.Unknown()),
        }),
        T.Object({ type: T.Literal("refusal"), refusal: T.String() }),
      ]),
    ),
    status: ItemStatus,
  }),
  FunctionCallOutput,
  T.Object({
    id: T.String(),
    type: T.Literal("function_call_output"),
    call_id: T.String(),
    output: T.Union([T.String(), T.Array(InputContent)]),
    status: ItemStatus,
  }),
]);
export type ItemResource = Static<typeof ItemResource>;

/** Which page of input items (the route's query). */
export interface InputItemsQuery {
  limit?: number | undefined;
  order?: "asc" | "desc" | undefined;
  after?: string | undefined;
  include?: string | string[] | undefined;
}

export const InputItemList = T.Object({
  object: T.Literal("list"),
  data: T.Array(ItemResource),
  first_id: T.String({ description: "Empty when the page is" }),
  last_id: T.String({ description: "Empty when the page is" }),
  has_more: T.Boolean(),
});
export type InputItemList = Static<typeof InputItemList>;

export const DeletedResponse = T.Object({
  id: T.String(),
  object: T.Literal("response"),
  deleted: T.Literal(true),
});

/**
 * One event of a streamed response (the `data` of each SSE event; the `event:` line repeats `type`),
 * for the OpenAPI document. The fields beyond these depend on `type` (services/inference/responses/stream.ts).
 */
export const ResponseStreamEvent = T.Object(
  {
    type: T.Union(
      [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
        "response.incomplete",
        "response.failed",
        "error",
      ].map((type) => T.Literal(type)),
    ),
    sequence_number: T.Integer({ minimum: 0 }),
    response: T.Optional(ResponseObject),
    item: T.Optional(T.Union([MessageOutput, FunctionCallOutput])),
    item_id: T.Optional(T.String()),
    output_index: T.Optional(T.Integer()),
    content_index: T.Optional(T.Integer()),
    delta: T.Optional(T.String()),
    text: T.Optional(T.String()),
    name: T.Optional(
      T.String({ description: "The function's name, on response.function_call_arguments.done" }),
    ),
    arguments: T.Optional(T.String()),
  },
  { additionalProperties: true },
);
