import { t } from "elysia";
import { route } from "../../../server/http/route.ts";
import { registerModel } from "../../../services/orchestration/models.ts";
import { Model } from "../_schemas/model.ts";

export const POST = route({
  access: "models:write",
  summary: "Register a version of a model (409 when that name and version exist)",
  body: t.Object({
    model_name: t.String({ description: "Letters, digits, . _ : -" }),
    model_version: t.Optional(t.String({ description: "Default: latest" })),
    backend: t.String({
      description: "The inference engine: llama.cpp, vllm, sglang, tgi, openai-compatible",
    }),
    artifact_uri: t.Optional(t.String({ description: "Path, file:// or http(s):// URL of the model file" })),
    config_json: t.Optional(t.Record(t.String(), t.Unknown())),
  }),
  response: Model,
  status: 201,
  handler: ({ ctx, body }) => registerModel(ctx, body),
});
