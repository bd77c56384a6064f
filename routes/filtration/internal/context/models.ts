import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { modelsForApiKey } from "#services/inference-context/resolve.ts";

export const POST = route({
  access: "internal",
  summary: "The deployments an API key may call (the inference gateway's GET /v1/models when it runs apart)",
  body: t.Object({ api_key: t.String({ maxLength: 256 }) }),
  response: t.Union([
    t.Object({ valid: t.Literal(false) }),
    t.Object({
      valid: t.Literal(true),
      data: t.Array(t.Object({ id: t.String(), created: t.Integer() })),
    }),
  ]),
  async handler({ ctx, body }) {
    const models = await modelsForApiKey(ctx, body.api_key);
    return models ? { valid: true as const, data: models } : { valid: false as const };
  },
});
