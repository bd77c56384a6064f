// GET /v1/responses/{response_id}/input_items: the items a stored response of the API key's
// organization answered, a page at a time (OpenAI's list shape); another organization's id is 404.
import { t } from "elysia";
import { InputItemList } from "#contracts/openai/responses.ts";
import { bearerOf } from "#server/http/gateway.ts";
import { route } from "#server/http/route.ts";
import { listInputItems } from "#services/inference/responses/responses.ts";
import { inferenceRuntimeOf } from "#services/inference/runtime.ts";
import { lifecycleErrors } from "../../_schemas/errors.ts";

const query = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20 })),
  order: t.Optional(t.Union([t.Literal("asc"), t.Literal("desc")], { default: "desc" })),
  after: t.Optional(t.String({ maxLength: 256, description: "An item id: the page starts after it" })),
  include: t.Optional(
    t.Union([t.String(), t.Array(t.String())], { description: "Refused: no extra item fields are kept" }),
  ),
});

export const GET = route({
  access: "public",
  apiKey: true,
  summary: "The input items of a stored response (Authorization: Bearer <API key>)",
  description:
    "Every item the model answered, earlier turns of `previous_response_id` included; `order` `desc` " +
    "(default) or `asc`, `limit` 1-100 (default 20), `after` an item id.",
  params: t.Object({ response_id: t.String({ minLength: 1, maxLength: 256 }) }),
  query,
  response: InputItemList,
  errors: lifecycleErrors,
  handler: ({ ctx, params, query, request }) =>
    listInputItems(inferenceRuntimeOf(ctx), bearerOf(request), params.response_id, query),
});
