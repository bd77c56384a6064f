import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { CreateTemplateBody } from "#services/prompts/requests.ts";
import { createTemplate, listTemplates } from "#services/prompts/templates.ts";
import { PromptTemplate } from "../../_schemas/prompts.ts";

export const GET = route({
  access: "prompts:read",
  summary: "The prompt templates of your organization, each at its latest version",
  response: t.Object({ templates: t.Array(PromptTemplate) }),
  handler: ({ ctx }) => listTemplates(ctx),
});

export const POST = route({
  access: "prompts:write",
  summary: "Create a prompt template (version 1)",
  description:
    "`system_prompt` is put first as a system message; `user_template` wraps the caller's last user message, " +
    "which replaces `{{input}}` (required in it); `{{context}}` receives retrieved passages. 409 for a name taken.",
  body: CreateTemplateBody,
  status: 201,
  response: PromptTemplate,
  handler: ({ ctx, body }) => createTemplate(ctx, body),
});
