import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { findResponse } from "#services/responses/store.ts";
import { StoredResponseWire, toWire } from "#services/responses/wire.ts";
import { KeyedResponseLookup } from "../../_schemas/responses.ts";

export const POST = route({
  access: "internal",
  summary: "A stored response, in the organization of the caller's API key (GET /v1/responses/{id} apart)",
  body: KeyedResponseLookup,
  response: t.Union([
    t.Object({
      found: t.Literal(false),
      reason: t.Union([t.Literal("invalid_api_key"), t.Literal("not_found")]),
    }),
    t.Object({ found: t.Literal(true), response: StoredResponseWire }),
  ]),
  async handler({ ctx, body }) {
    const lookup = await findResponse(ctx, body.api_key, body.id);
    return lookup.ok
      ? { found: true as const, response: toWire(lookup.response) }
      : { found: false as const, reason: lookup.reason };
  },
});
