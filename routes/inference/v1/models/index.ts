// GET /v1/models. Access is "public" at the guard because the API key is checked by the service, answered
// in the OpenAI error shape.

import { ModelList } from "#contracts/openai/models.ts";
import { bearerOf } from "#server/http/gateway.ts";
import { route } from "#server/http/route.ts";
import { listModels } from "#services/inference/models.ts";
import { inferenceRuntimeOf } from "#services/inference/runtime.ts";

export const GET = route({
  access: "public",
  summary: "The deployments this API key may call",
  description: "Authorization: Bearer <API key>. Each deployment name is a `model` of the inference calls.",
  apiKey: true,
  errors: [401],
  response: ModelList,
  handler: async ({ ctx, request }) => ({
    object: "list" as const,
    data: await listModels(inferenceRuntimeOf(ctx), bearerOf(request)),
  }),
});
