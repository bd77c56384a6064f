import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { TemplateName, TemplateText } from "#services/prompts/requests.ts";
import { deleteTemplate, getTemplate, updateTemplate } from "#services/prompts/templates.ts";
import { PromptTemplate } from "../../_schemas/prompts.ts";

const params = t.Object({ id: t.String() });

export const GET = route({
  access: "prompts:read",
  summary: "A prompt template at its latest version, or at `version`",
  params,
  query: t.Object({ version: t.Optional(t.Integer({ minimum: 1 })) }),
  response: PromptTemplate,
  handler: ({ ctx, params, query }) => getTemplate(ctx, params.id, query.version),
});

export const PUT = route({
  access: "prompts:write",
  summary: "Update a prompt template: a new version, the old ones kept",
  description: "Fields left out keep their value; null removes system_prompt or user_template.",
  params,
  body: t.Object({
    name: t.Optional(TemplateName),
    system_prompt: t.Optional(t.Nullable(TemplateText)),
    user_template: t.Optional(t.Nullable(TemplateText)),
  }),
  response: PromptTemplate,
  handler: ({ ctx, params, body }) => updateTemplate(ctx, params.id, body),
});

export const DELETE = route({
  access: "prompts:write",
  summary: "Delete a prompt template and all its versions",
  description: "409 while a `prompt` policy applies it (the message names the deployments).",
  params,
  response: t.Object({ id: t.String(), deleted: t.Literal(true) }),
  handler: ({ ctx, params }) => deleteTemplate(ctx, params.id),
});
