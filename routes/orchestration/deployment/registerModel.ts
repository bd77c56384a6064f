import { route } from "#server/http/route.ts";
import { registerModel } from "#services/orchestration/models.ts";
import { RegisterModelBody } from "#services/orchestration/requests.ts";
import { Model } from "../_schemas/model.ts";

export const POST = route({
  access: "models:write",
  summary: "Register a version of a model (409 when that name and version exist)",
  body: RegisterModelBody,
  response: Model,
  status: 201,
  handler: ({ ctx, body }) => registerModel(ctx, body),
});
