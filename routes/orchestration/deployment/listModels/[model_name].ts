import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { listModelVersions } from "#services/orchestration/models.ts";
import { Model } from "../../_schemas/model.ts";

export const GET = route({
  access: "models:read",
  summary: "The registered versions of a model, oldest first (empty when it has none)",
  params: t.Object({ model_name: t.String() }),
  response: t.Object({ model_name: t.String(), models: t.Array(Model) }),
  handler: ({ ctx, params }) => listModelVersions(ctx, params.model_name),
});
