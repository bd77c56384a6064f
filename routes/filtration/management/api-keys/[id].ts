import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { revokeApiKey } from "#services/api-keys/keys.ts";
import { ApiKey } from "../../_schemas/api-keys.ts";

export const DELETE = route({
  access: "api_keys:write",
  summary: "Revoke an API key",
  description:
    "The key stops working at once (the inference gateway within a second); its record stays, with `revoked_at`.",
  params: t.Object({ id: t.String() }),
  response: ApiKey,
  handler: ({ ctx, params }) => revokeApiKey(ctx, params.id),
});
