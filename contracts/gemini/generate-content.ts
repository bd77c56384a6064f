// Google's Gemini API (generativelanguage.googleapis.com, v1beta), the wire contract the Gemini adapter
// (adapters/upstream/wire/gemini.ts) speaks upstream, written once here:
// models/{model}:generateContent, :streamGenerateContent?alt=sse and :batchEmbedContents, the request
// sent and the answers read (read leniently: open objects, only what the translation uses required).
// Function parameters and response schemas go as JSON Schema (`parametersJsonSchema`,
// `responseJsonSchema`) rather than the older OpenAPI-subset `parameters`/`responseSchema`, which refuse
// keywords OpenAI's strict schemas always carry (additionalProperties).
import { type Static, Type as T } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";

const open = { additionalProperties: true } as const;
const JsonObject = T.Record(T.String(), T.Unknown());

export const Part = T.Object(
  {
    text: T.Optional(T.String()),
    /** A summary of the model's thinking, not answer text. */
    thought: T.Optional(T.Boolean()),
    /** The model's encrypted reasoning behind this part; Gemini 3 wants it back with each functionCall. */
    thoughtSignature: T.Optional(T.String()),
    inlineData: T.Optional(T.Object({ mimeType: T.String(), data: T.String() })),
    functionCall: T.Optional(
      T.Object({ id: T.Optional(T.String()), name: T.String(), args: T.Optional(JsonObject) }, open),
    ),
    functionResponse: T.Optional(
      T.Object({ id: T.Optional(T.String()), name: T.String(), response: JsonObject }, open),
    ),
  },
  open,
);
export type Part = Static<typeof Part>;

export const Content = T.Object(
  { role: T.Optional(T.Union([T.Literal("user"), T.Literal("model")])), parts: T.Array(Part) },
  open,
);
export type Content = Static<typeof Content>;

export const FunctionDeclaration = T.Object({
  name: T.String(),
  description: T.Optional(T.String()),
  parametersJsonSchema: T.Optional(JsonObject),
});

export const FunctionCallingConfig = T.Object({
  mode: T.Union([T.Literal("AUTO"), T.Literal("ANY"), T.Literal("NONE")]),
  allowedFunctionNames: T.Optional(T.Array(T.String())),
});
export type FunctionCallingConfig = Static<typeof FunctionCallingConfig>;

export const GenerationConfig = T.Object({
  temperature: T.Optional(T.Number()),
  topP: T.Optional(T.Number()),
  maxOutputTokens: T.Optional(T.Integer()),
  stopSequences: T.Optional(T.Array(T.String())),
  seed: T.Optional(T.Integer()),
  presencePenalty: T.Optional(T.Number()),
  frequencyPenalty: T.Optional(T.Number()),
  responseMimeType: T.Optional(T.String()),
  responseJsonSchema: T.Optional(JsonObject),
});
export type GenerationConfig = Static<typeof GenerationConfig>;

export const GenerateContentRequest = T.Object({
  contents: T.Array(Content),
  systemInstruction: T.Optional(T.Object({ parts: T.Array(T.Object({ text: T.String() })) })),
  tools: T.Optional(T.Array(T.Object({ functionDeclarations: T.Array(FunctionDeclaration) }))),
  toolConfig: T.Optional(T.Object({ functionCallingConfig: FunctionCallingConfig })),
  generationConfig: T.Optional(GenerationConfig),
});
export type GenerateContentRequest = Static<typeof GenerateContentRequest>;

const count = T.Optional(T.Integer());

export const UsageMetadata = T.Object(
  {
    promptTokenCount: count,
    candidatesTokenCount: count,
    totalTokenCount: count,
    cachedContentTokenCount: count,
    thoughtsTokenCount: count,
  },
  open,
);
export type UsageMetadata = Static<typeof UsageMetadata>;

export const Candidate = T.Object(
  { content: T.Optional(Content), finishReason: T.Optional(T.String()), index: T.Optional(T.Integer()) },
  open,
);
export type Candidate = Static<typeof Candidate>;

/** One answer, or one event's data in a stream (each a GenerateContentResponse). */
export const GenerateContentResponse = T.Object(
  {
    candidates: T.Optional(T.Array(Candidate)),
    promptFeedback: T.Optional(T.Object({ blockReason: T.Optional(T.String()) }, open)),
    usageMetadata: T.Optional(UsageMetadata),
    modelVersion: T.Optional(T.String()),
    responseId: T.Optional(T.String()),
  },
  open,
);
export type GenerateContentResponse = Static<typeof GenerateContentResponse>;

export const BatchEmbedContentsRequest = T.Object({
  requests: T.Array(
    T.Object({
      model: T.String(),
      content: T.Object({ parts: T.Array(T.Object({ text: T.String() })) }),
    }),
  ),
});
export type BatchEmbedContentsRequest = Static<typeof BatchEmbedContentsRequest>;

export const BatchEmbedContentsResponse = T.Object(
  { embeddings: T.Array(T.Object({ values: T.Array(T.Number()) }, open)) },
  open,
);

/** Google's error body (google.rpc.Status as JSON); `details` may hold an ErrorInfo with a `reason`. */
export const ErrorBody = T.Object(
  {
    error: T.Object(
      {
        code: T.Integer(),
        message: T.String(),
        status: T.Optional(T.String()),
        details: T.Optional(T.Array(T.Object({ reason: T.Optional(T.String()) }, open))),
      },
      open,
    ),
  },
  open,
);
export type ErrorBody = Static<typeof ErrorBody>;

export const checkResponse = TypeCompiler.Compile(GenerateContentResponse);
export const checkEmbeddings = TypeCompiler.Compile(BatchEmbedContentsResponse);
export const checkError = TypeCompiler.Compile(ErrorBody);
