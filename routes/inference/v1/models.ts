import { t } from "elysia";
import { bearerOf } from "../../../server/http/gateway.ts";
import { route } from "../../../server/http/route.ts";
import { AppError } from "../../../services/errors.ts";
import { inferenceRuntimeOf } from "../../../services/inference/runtime.ts";

export const GET = route({
  access: "public",
  summary: "The deployments this API key may call",
  response: t.Object({
    object: t.Literal("list"),
    data: t.Array(
      t.Object({ id: t.String(), object: t.Literal("model"), created: t.Integer(), owned_by: t.String() }),
    ),
  }),
  handler: async ({ ctx, request }) => {
    const apiKey = bearerOf(request);
    const models = apiKey ? await inferenceRuntimeOf(ctx).port.models(apiKey) : undefined;
    if (!models) throw new AppError("unauthenticated", "invalid API key", { openai_code: "invalid_api_key" });
    return {
      object: "list" as const,
      data: models.map((m) => ({
        id: m.id,
        object: "model" as const,
        created: m.created,
        owned_by: "platform",
      })),
    };
  },
});
