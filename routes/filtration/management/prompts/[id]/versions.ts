import { t } from "elysia";
import { PromptTemplate } from "#routes/filtration/_schemas/prompts.ts";
import { route } from "#server/http/route.ts";
import { listTemplateVersions } from "#services/prompts/templates.ts";

export const GET = route({
  access: "prompts:read",
  summary: "Every version of a prompt template, newest first",
  params: t.Object({ id: t.String() }),
  response: t.Object({ versions: t.Array(PromptTemplate) }),
  handler: ({ ctx, params }) => listTemplateVersions(ctx, params.id),
});
