import { t } from "elysia";
import { Model } from "#routes/orchestration/_schemas/model.ts";
import { route } from "#server/http/route.ts";
import { getModel } from "#services/orchestration/models.ts";

export const GET = route({
  access: "models:read",
  summary: "One version of a registered model",
  params: t.Object({ name: t.String(), version: t.String() }),
  response: Model,
  handler: ({ ctx, params }) => getModel(ctx, params.name, params.version),
});
