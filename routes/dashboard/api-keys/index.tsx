import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { createApiKey, listApiKeys } from "#services/api-keys/keys.ts";
import { CreateApiKeyBody } from "#services/api-keys/requests.ts";
import type { RequestContext } from "#services/context.ts";
import { listDeployments } from "#services/orchestration/deployment-queries.ts";
import { type FormValues, submitForm } from "../_shared/form.ts";
import { can, type PageInfo, pageInfo } from "../_shared/page.ts";
import { ApiKeysPage, type ApiKeysPageProps } from "./_view.tsx";

async function render(ctx: RequestContext, page: PageInfo, extra: Partial<ApiKeysPageProps> = {}) {
  const [{ api_keys }, deployments] = await Promise.all([
    listApiKeys(ctx),
    can(page, "deployments:read") ? listDeployments(ctx).then((r) => r.deployments) : [],
  ]);
  return (
    <ApiKeysPage
      page={page}
      keys={api_keys}
      deployments={deployments.map((d) => ({ id: d.deployment_id, name: d.model_name }))}
      {...extra}
    />
  );
}

export const GET = route({
  access: "api_keys:read",
  summary: "API keys page",
  html: true,
  handler: async ({ ctx, request }) => render(ctx, await pageInfo(ctx, request)),
});

/** The form's date (a day) is the API's expires_at at the start of that day, UTC. */
const toApi = (form: FormValues): FormValues => {
  const { expires_on, ...rest } = form;
  return typeof expires_on === "string" && expires_on
    ? { ...rest, expires_at: `${expires_on}T00:00:00.000Z` }
    : rest;
};

export const POST = route({
  access: "api_keys:write",
  summary: "Create an API key from the form; the page shows its value once",
  html: true,
  body: t.Record(t.String(), t.Unknown()),
  handler: async ({ ctx, body, request, set }) => {
    const page = await pageInfo(ctx, request);
    const created = await submitForm(CreateApiKeyBody, toApi(body), (value) => createApiKey(ctx, value), {
      arrays: ["deployment_ids"],
    });
    if (!created.ok) {
      set.status = 422;
      const errors = { ...created.errors };
      if (errors.expires_at) errors.expires_on = errors.expires_at;
      return render(ctx, page, { form: { errors, values: body } });
    }
    // The value is in this page only: no cache may keep it.
    set.headers["cache-control"] = "no-store";
    return render(ctx, page, { created: created.value });
  },
});
