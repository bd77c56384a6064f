// The embeddings request, as OpenAI clients send it (`input` as one text or several; token arrays are
// not accepted: the platform's replicas take text).
import { t } from "elysia";

export const EmbeddingsRequest = t.Object(
  {
    model: t.String({ minLength: 1, maxLength: 128, description: "The deployment name" }),
    input: t.Union([
      t.String({ minLength: 1, maxLength: 1_000_000 }),
      t.Array(t.String({ minLength: 1, maxLength: 1_000_000 }), { minItems: 1, maxItems: 2048 }),
    ]),
    encoding_format: t.Optional(t.Union([t.Literal("float"), t.Literal("base64")])),
    dimensions: t.Optional(t.Integer({ minimum: 1 })),
    user: t.Optional(t.String({ maxLength: 256 })),
  },
  { additionalProperties: true },
);
