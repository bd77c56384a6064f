import { t } from "elysia";
import { StoredResponseWire } from "#contracts/internal/responses.ts";
import { route } from "#server/http/route.ts";
import { saveResponse } from "#services/responses/store.ts";
import { fromWire } from "#services/responses/wire.ts";

export const POST = route({
  access: "internal",
  summary: "Store a response of POST /v1/responses (the inference gateway's `store`, when it runs apart)",
  bodyLimit: 16 * 1024 * 1024,
  body: StoredResponseWire,
  status: 201,
  response: t.Object({ stored: t.Literal(true) }),
  async handler({ ctx, body }) {
    await saveResponse(ctx, fromWire(body));
    return { stored: true as const };
  },
});
