import { ModelsAnswer, ModelsRequest } from "#contracts/internal/resolve.ts";
import { route } from "#server/http/route.ts";
import { modelsForApiKey } from "#services/inference-context/resolve.ts";

export const POST = route({
  access: "internal",
  summary: "The deployments an API key may call (the inference gateway's GET /v1/models when it runs apart)",
  body: ModelsRequest,
  response: ModelsAnswer,
  async handler({ ctx, body }) {
    const models = await modelsForApiKey(ctx, body.api_key);
    return models ? { valid: true as const, data: models } : { valid: false as const };
  },
});
