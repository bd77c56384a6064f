// The embeddings request, as OpenAI clients send it (`input` as one text or several; token arrays are
// not accepted: the platform's replicas take text).
import { type Static, Type as t } from "@sinclair/typebox";

export const EmbeddingsRequest = t.Object(
  {
    model: t.String({ minLength: 1, maxLength: 128, description: "The deployment name" }),
    input: t.Union([
      t.String({ minLength: 1, maxLength: 1_000_000 }),
      t.Array(t.String({ minLength: 1, maxLength: 1_000_000 }), { minItems: 1, maxItems: 2048 }),
    ]),
    encoding_format: t.Optional(t.Union([t.Literal("float"), t.Literal("base64")])),
    dimensions: t.Optional(
      t.Integer({
        minimum: 1,
        description:
          "The first `dimensions` values of each vector, scaled back to length 1; 400 when the model's are fewer",
      }),
    ),
    user: t.Optional(t.String({ maxLength: 256 })),
  },
  { additionalProperties: true },
);
export type EmbeddingsRequest = Static<typeof EmbeddingsRequest>;

export const EmbeddingsResponse = t.Object(
  {
    object: t.Literal("list"),
    data: t.Array(
      t.Object({
        object: t.Literal("embedding"),
        index: t.Integer(),
        embedding: t.Union([t.Array(t.Number()), t.String({ description: "base64, with encoding_format" })]),
      }),
    ),
    model: t.String({ description: "The deployment name" }),
    usage: t.Object({ prompt_tokens: t.Integer(), total_tokens: t.Integer() }),
  },
  { additionalProperties: true },
);
export type EmbeddingsResponse = Static<typeof EmbeddingsResponse>;
