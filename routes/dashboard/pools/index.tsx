import { t } from "elysia";
import { route } from "#server/http/route.ts";
import type { PlatformRequestContext } from "#server/platform-context.ts";
import { actorOf } from "#services/context.ts";
import { createPool, listPools } from "#services/orchestration/pools.ts";
import { CreatePoolBody } from "#services/orchestration/requests.ts";
import { type FormValues, submitForm } from "../_shared/form.ts";
import { type PageInfo, pageInfo } from "../_shared/page.ts";
import { providerChoices } from "./_providers.ts";
import { PoolsPage, type PoolsPageProps } from "./_view.tsx";

async function render(ctx: PlatformRequestContext, page: PageInfo, extra: Partial<PoolsPageProps> = {}) {
  const [{ pools }, choices] = await Promise.all([listPools(ctx, actorOf(ctx).orgId), providerChoices(ctx)]);
  return <PoolsPage page={page} pools={pools} {...choices} {...extra} />;
}

export const GET = route({
  access: "pools:read",
  summary: "Pools page",
  html: true,
  handler: async ({ ctx, request }) => render(ctx, await pageInfo(ctx, request)),
});

/** The form's comma-separated GPU types are the API's array; the dedicated checkbox its boolean. */
const toApi = (form: FormValues): FormValues => {
  const gpus = typeof form.allowed_gpu_types === "string" ? form.allowed_gpu_types : "";
  return {
    ...form,
    is_dedicated:
      form.is_dedicated === "true" || (Array.isArray(form.is_dedicated) && form.is_dedicated.length > 0),
    allowed_gpu_types: gpus
      .split(",")
      .map((g) => g.trim())
      .filter(Boolean),
  };
};

export const POST = route({
  access: "pools:write",
  summary: "Create a pool from the form; the page shows its node token once",
  html: true,
  body: t.Record(t.String(), t.Unknown()),
  handler: async ({ ctx, body, request, set }) => {
    const page = await pageInfo(ctx, request);
    const created = await submitForm(CreatePoolBody, toApi(body), (value) => createPool(ctx, value));
    if (!created.ok) {
      set.status = 422;
      return render(ctx, page, { form: { errors: created.errors, values: body } });
    }
    set.headers["cache-control"] = "no-store";
    return render(ctx, page, { created: created.value });
  },
});
