import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { createApiKey, listApiKeys } from "#services/api-keys/keys.ts";
import { CreateApiKeyBody } from "#services/api-keys/requests.ts";
import { ApiKey, CreatedApiKey } from "../../_schemas/api-keys.ts";

export const GET = route({
  access: "api_keys:read",
  summary: "The API keys of your organization (never the keys themselves), newest first",
  response: t.Object({ api_keys: t.Array(ApiKey) }),
  handler: ({ ctx }) => listApiKeys(ctx),
});

export const POST = route({
  access: "api_keys:write",
  summary: "Create an API key; its value is in this answer only",
  description:
    "Without `deployment_ids` the key may call every deployment of the organization; with them, only those. " +
    "`expires_at` (ISO 8601, in the future) ends it on its own.",
  body: CreateApiKeyBody,
  status: 201,
  response: CreatedApiKey,
  handler: ({ ctx, body }) => createApiKey(ctx, body),
});
