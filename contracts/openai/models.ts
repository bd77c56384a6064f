// OpenAI's model object and list: what GET /v1/models lists and GET /v1/models/{model} answers on the
// inference gateway, and what the llama.cpp worker lists (one model per worker). Written once here.
import { type Static, Type as T } from "@sinclair/typebox";

export const ModelObject = T.Object({
  id: T.String({ description: "The deployment name" }),
  object: T.Literal("model"),
  created: T.Integer({ description: "Unix seconds" }),
  owned_by: T.String(),
});
export type ModelObject = Static<typeof ModelObject>;

export const ModelList = T.Object({ object: T.Literal("list"), data: T.Array(ModelObject) });
export type ModelList = Static<typeof ModelList>;
