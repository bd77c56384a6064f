import { t } from "elysia";
import { route } from "../../../../../server/http/route.ts";
import { getModel } from "../../../../../services/orchestration/models.ts";
import { Model } from "../../../_schemas/model.ts";

export const GET = route({
  access: "models:read",
  summary: "One version of a registered model",
  params: t.Object({ name: t.String(), version: t.String() }),
  response: Model,
  handler: ({ ctx, params }) => getModel(ctx, params.name, params.version),
});
