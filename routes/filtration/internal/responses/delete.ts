import { DeletedStoredResponse, KeyedResponseLookup } from "#contracts/internal/responses.ts";
import { route } from "#server/http/route.ts";
import { deleteResponse } from "#services/responses/store.ts";

export const POST = route({
  access: "internal",
  summary: "Delete a stored response of the caller's organization (DELETE /v1/responses/{id} apart)",
  body: KeyedResponseLookup,
  response: DeletedStoredResponse,
  async handler({ ctx, body }) {
    const result = await deleteResponse(ctx, body.api_key, body.id);
    return result.ok ? { deleted: true } : { deleted: false, reason: result.reason };
  },
});
