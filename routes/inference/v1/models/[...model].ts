// GET /v1/models/{model}. The file takes the rest of the path: deployment names may hold "/" and ":"
// (`org/llama-3:q4`), sent as they are or percent-encoded (the openai SDK encodes them).
import { t } from "elysia";
import { ModelObject } from "#contracts/openai/models.ts";
import { bearerOf } from "#server/http/gateway.ts";
import { route } from "#server/http/route.ts";
import { getModel } from "#services/inference/models.ts";
import { inferenceRuntimeOf } from "#services/inference/runtime.ts";

export const GET = route({
  access: "public",
  summary: "One deployment this API key may call",
  description:
    "Authorization: Bearer <API key>. 404 `model_not_found` for a name that is not a deployment of the key's " +
    "organization, or one the key is not scoped to.",
  params: t.Object({ model: t.String({ description: "The deployment name; may contain / and :" }) }),
  apiKey: true,
  errors: [401, 404],
  response: ModelObject,
  handler: ({ ctx, request, params }) => getModel(inferenceRuntimeOf(ctx), bearerOf(request), params.model),
});
