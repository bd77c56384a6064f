import { t } from "elysia";

export const PromptTemplate = t.Object({
  id: t.String({ description: "Stable across versions" }),
  name: t.String(),
  system_prompt: t.Nullable(t.String()),
  user_template: t.Nullable(t.String({ description: "Holds {{input}}; may hold {{context}}" })),
  version: t.Integer({ minimum: 1 }),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time", description: "When this version was made" }),
});
