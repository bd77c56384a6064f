import { t } from "elysia";
import { route } from "#server/http/route.ts";
import type { RequestContext } from "#services/context.ts";
import { listModels, registerModel } from "#services/orchestration/models.ts";
import { RegisterModelBody } from "#services/orchestration/requests.ts";
import { submitForm } from "../_shared/form.ts";
import { redirectWithNotice } from "../_shared/notice.ts";
import { type PageInfo, pageInfo } from "../_shared/page.ts";
import { ModelsPage, type ModelsPageProps } from "./_view.tsx";

const render = async (ctx: RequestContext, page: PageInfo, extra: Partial<ModelsPageProps> = {}) => (
  <ModelsPage page={page} models={(await listModels(ctx)).models} {...extra} />
);

export const GET = route({
  access: "models:read",
  summary: "Model registry page",
  html: true,
  handler: async ({ ctx, request }) => render(ctx, await pageInfo(ctx, request)),
});

export const POST = route({
  access: "models:write",
  summary: "Register a model version from the form",
  html: true,
  body: t.Record(t.String(), t.Unknown()),
  handler: async ({ ctx, body, request, set }) => {
    const registered = await submitForm(RegisterModelBody, body, (value) => registerModel(ctx, value));
    if (registered.ok) return redirectWithNotice("/models", "model-registered");
    set.status = 422;
    return render(ctx, await pageInfo(ctx, request), { form: { errors: registered.errors, values: body } });
  },
});
