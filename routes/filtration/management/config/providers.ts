// A static sibling of [policy_type].ts: /management/config/providers is matched before the parameter.
import { t } from "elysia";
import { providerIds } from "#core/domain.ts";
import { route } from "#server/http/route.ts";
import { listProviderConfigs, setProviderConfig } from "#services/provider-configs/config.ts";

const ProviderConfig = t.Object({
  provider: t.String(),
  configured: t.Boolean(),
  settings: t.Record(t.String(), t.Unknown()),
  credentials: t.Record(t.String(), t.String(), {
    description: "Masked: ****, and the last 4 characters of long values",
  }),
  updated_at: t.Nullable(t.String({ format: "date-time" })),
});

export const GET = route({
  access: "providers:read",
  summary: "The settings and (masked) credentials of every compute provider",
  response: t.Object({ providers: t.Array(ProviderConfig) }),
  handler: ({ ctx }) => listProviderConfigs(ctx),
});

export const POST = route({
  access: "providers:write",
  summary: "Save a provider's settings and credentials (credentials are encrypted at rest)",
  description:
    "`settings` left out stays as it is; `credentials` left out stay as they are, given they replace all stored ones " +
    "(`{}` removes them). Answers the saved config, credentials masked.",
  body: t.Object({
    provider: t.Union(providerIds.map((p) => t.Literal(p))),
    settings: t.Optional(t.Record(t.String(), t.Unknown())),
    credentials: t.Optional(
      t.Record(t.String(), t.String({ minLength: 1, maxLength: 16_384 }), { maxProperties: 32 }),
    ),
  }),
  response: ProviderConfig,
  handler: ({ ctx, body }) => setProviderConfig(ctx, body),
});
