import { FoundResponse, KeyedResponseLookup } from "#contracts/internal/responses.ts";
import { route } from "#server/http/route.ts";
import { findResponse } from "#services/responses/store.ts";
import { toWire } from "#services/responses/wire.ts";

export const POST = route({
  access: "internal",
  summary: "A stored response, in the organization of the caller's API key (GET /v1/responses/{id} apart)",
  body: KeyedResponseLookup,
  response: FoundResponse,
  async handler({ ctx, body }) {
    const lookup = await findResponse(ctx, body.api_key, body.id);
    return lookup.ok
      ? { found: true as const, response: toWire(lookup.response) }
      : { found: false as const, reason: lookup.reason };
  },
});
