import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { CreateTemplateBody } from "#services/prompts/requests.ts";
import { createTemplate, listTemplates } from "#services/prompts/templates.ts";
import { submitForm } from "../_shared/form.ts";
import { redirectWithNotice } from "../_shared/notice.ts";
import { pageInfo } from "../_shared/page.ts";
import { PromptsPage } from "./_view.tsx";

export const GET = route({
  access: "prompts:read",
  summary: "Prompt templates page",
  html: true,
  handler: async ({ ctx, request }) => (
    <PromptsPage page={await pageInfo(ctx, request)} templates={(await listTemplates(ctx)).templates} />
  ),
});

export const POST = route({
  access: "prompts:write",
  summary: "Create a template from the form",
  html: true,
  body: t.Record(t.String(), t.Unknown()),
  handler: async ({ ctx, body, request, set }) => {
    const created = await submitForm(CreateTemplateBody, body, (value) => createTemplate(ctx, value));
    if (created.ok) return redirectWithNotice(`/prompts/${created.value.id}`, "template-created");
    set.status = 422;
    return (
      <PromptsPage
        page={await pageInfo(ctx, request)}
        templates={(await listTemplates(ctx)).templates}
        form={{ errors: created.errors, values: body }}
      />
    );
  },
});
