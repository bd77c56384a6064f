import { t } from "elysia";

export const Model = t.Object({
  model_name: t.String(),
  model_version: t.String(),
  backend: t.String(),
  artifact_uri: t.Nullable(t.String()),
  shared: t.Boolean(),
  config_json: t.Record(t.String(), t.Unknown()),
  created_at: t.String({ format: "date-time" }),
});
