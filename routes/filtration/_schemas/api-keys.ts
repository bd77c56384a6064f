import { t } from "elysia";

const timestamp = t.String({ format: "date-time" });

export const ApiKey = t.Object({
  id: t.String(),
  name: t.String(),
  prefix: t.String({ description: "sk- and the first 8 characters: how to recognise the key" }),
  deployment_ids: t.Array(t.String(), { description: "The deployments it may call; empty: all of them" }),
  created_at: timestamp,
  last_used_at: t.Nullable(timestamp),
  expires_at: t.Nullable(timestamp),
  revoked_at: t.Nullable(timestamp),
});

export const CreatedApiKey = t.Object({
  id: t.String(),
  name: t.String(),
  key: t.String({ description: "The key itself, shown this once: it cannot be displayed again" }),
  prefix: t.String(),
  deployment_ids: t.Array(t.String()),
  created_at: timestamp,
  expires_at: t.Nullable(timestamp),
});
