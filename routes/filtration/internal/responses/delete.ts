import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { deleteResponse } from "#services/responses/store.ts";
import { KeyedResponseLookup } from "../../_schemas/responses.ts";

export const POST = route({
  access: "internal",
  summary: "Delete a stored response of the caller's organization (DELETE /v1/responses/{id} apart)",
  body: KeyedResponseLookup,
  response: t.Object({
    deleted: t.Boolean(),
    reason: t.Optional(t.Union([t.Literal("invalid_api_key"), t.Literal("not_found")])),
  }),
  async handler({ ctx, body }) {
    const result = await deleteResponse(ctx, body.api_key, body.id);
    return result.ok ? { deleted: true } : { deleted: false, reason: result.reason };
  },
});
