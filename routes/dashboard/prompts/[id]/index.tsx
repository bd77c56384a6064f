import { t } from "elysia";
import { route } from "#server/http/route.ts";
import type { RequestContext } from "#services/context.ts";
import { CreateTemplateBody } from "#services/prompts/requests.ts";
import { getTemplate, listTemplateVersions, updateTemplate } from "#services/prompts/templates.ts";
import { attempt, parseForm } from "../../_shared/form.ts";
import { redirectWithNotice } from "../../_shared/notice.ts";
import { pageInfo } from "../../_shared/page.ts";
import type { FormState } from "../../_shared/parts/form.tsx";
import { PromptPage } from "../_view.tsx";

const params = t.Object({ id: t.String() });

async function render(ctx: RequestContext, request: Request, id: string, form?: FormState) {
  const [page, template, { versions }] = await Promise.all([
    pageInfo(ctx, request),
    getTemplate(ctx, id),
    listTemplateVersions(ctx, id),
  ]);
  return <PromptPage page={page} template={template} versions={versions} form={form} />;
}

export const GET = route({
  access: "prompts:read",
  summary: "A prompt template: its versions and the edit form",
  html: true,
  params,
  handler: ({ ctx, request, params }) => render(ctx, request, params.id),
});

export const POST = route({
  access: "prompts:write",
  summary: "Save a new version of a template from the form",
  html: true,
  params,
  body: t.Record(t.String(), t.Unknown()),
  handler: async ({ ctx, params, body, request, set }) => {
    // A field emptied in the form removes it (null), as the API's PUT does.
    const parsed = parseForm(CreateTemplateBody, body);
    const saved = parsed.ok
      ? await attempt(() =>
          updateTemplate(ctx, params.id, {
            ...parsed.value,
            system_prompt: parsed.value.system_prompt ?? null,
            user_template: parsed.value.user_template ?? null,
          }),
        )
      : parsed;
    if (saved.ok) return redirectWithNotice(`/prompts/${params.id}`, "version-saved");
    set.status = 422;
    return render(ctx, request, params.id, { errors: saved.errors, values: body });
  },
});
