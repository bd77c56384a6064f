import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { deleteModel } from "#services/orchestration/models.ts";
import { redirectWithNotice } from "../_shared/notice.ts";

export const POST = route({
  access: "models:write",
  summary: "Delete a model version (after the page's confirmation)",
  html: true,
  body: t.Object({ model_name: t.String(), model_version: t.String(), _csrf: t.Optional(t.String()) }),
  handler: async ({ ctx, body }) => {
    await deleteModel(ctx, { model_name: body.model_name, model_version: body.model_version });
    return redirectWithNotice("/models", "model-deleted");
  },
});
