// POST /v1/completions (OpenAI's legacy text completions), the fields a chat model's server can serve.
// `suffix`, `echo`, `logprobs` and `best_of` > 1 are refused by name in services/inference/completions/
// rather than ignored. The usage is the chat contract's: the gateway serves completions through chat.
import { type Static, Type as T } from "@sinclair/typebox";
import { Usage } from "./chat.ts";

const tokenCount = T.Integer({ minimum: 1, maximum: 1_000_000 });
const penalty = T.Number({ minimum: -2, maximum: 2 });

export const CompletionRequest = T.Object(
  {
    model: T.String({ minLength: 1, maxLength: 128, description: "The deployment name" }),
    prompt: T.Union([T.String({ maxLength: 1_000_000 }), T.Array(T.String({ maxLength: 1_000_000 }))], {
      description:
        "A string, or an array holding exactly one string (one prompt per request; longer arrays are refused)",
    }),
    max_tokens: T.Optional(T.Union([tokenCount, T.Null()], { description: "Default 16, as OpenAI" })),
    temperature: T.Optional(T.Union([T.Number({ minimum: 0, maximum: 2 }), T.Null()])),
    top_p: T.Optional(T.Union([T.Number({ minimum: 0, maximum: 1 }), T.Null()])),
    stop: T.Optional(
      T.Union([
        T.String({ maxLength: 256 }),
        T.Array(T.String({ maxLength: 256 }), { maxItems: 4 }),
        T.Null(),
      ]),
    ),
    seed: T.Optional(T.Union([T.Integer(), T.Null()])),
    stream: T.Optional(T.Union([T.Boolean(), T.Null()])),
    stream_options: T.Optional(
      T.Union([
        T.Object({ include_usage: T.Optional(T.Boolean()) }, { additionalProperties: true }),
        T.Null(),
      ]),
    ),
    n: T.Optional(T.Union([T.Integer({ minimum: 1, maximum: 1, description: "Only 1" }), T.Null()])),
    presence_penalty: T.Optional(T.Union([penalty, T.Null()])),
    frequency_penalty: T.Optional(T.Union([penalty, T.Null()])),
    user: T.Optional(T.String({ maxLength: 256 })),
    suffix: T.Optional(T.Union([T.String(), T.Null()], { description: "Refused unless null" })),
    echo: T.Optional(T.Union([T.Boolean(), T.Null()], { description: "Refused when true" })),
    logprobs: T.Optional(T.Union([T.Integer(), T.Null()], { description: "Refused unless null" })),
    best_of: T.Optional(T.Union([T.Integer({ minimum: 1, maximum: 1 }), T.Null()])),
  },
  { additionalProperties: true },
);
export type CompletionRequest = Static<typeof CompletionRequest>;

export const CompletionChoice = T.Object({
  index: T.Integer(),
  text: T.String(),
  logprobs: T.Null(),
  finish_reason: T.Union([T.String(), T.Null()]),
});

export const Completion = T.Object({
  id: T.String(),
  object: T.Literal("text_completion"),
  created: T.Integer(),
  model: T.String(),
  choices: T.Array(CompletionChoice),
  usage: T.Optional(T.Union([Usage, T.Null()])),
});
export type Completion = Static<typeof Completion>;

/** One chunk of a streamed completion (the `data` of each SSE event, before `data: [DONE]`). */
export const CompletionChunk = T.Object({
  id: T.String(),
  object: T.Literal("text_completion"),
  created: T.Integer(),
  model: T.String(),
  choices: T.Array(CompletionChoice),
  usage: T.Optional(Usage),
});
