import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { deleteModel } from "#services/orchestration/models.ts";

export const DELETE = route({
  access: "models:write",
  summary: "Delete a version of a model (409 while a deployment uses it as its source)",
  body: t.Object({ model_name: t.String(), model_version: t.String() }),
  response: t.Object({ model_name: t.String(), model_version: t.String(), deleted: t.Literal(true) }),
  handler: ({ ctx, body }) => deleteModel(ctx, body),
});
