import { t } from "elysia";
import { deploymentStates } from "#core/domain.ts";
import { route } from "#server/http/route.ts";
import { actorOf, type RequestContext } from "#services/context.ts";
import { DeployRequest } from "#services/orchestration/deploy-request.ts";
import { deploy } from "#services/orchestration/deployment-commands.ts";
import { pageOfDeployments } from "#services/orchestration/deployment-queries.ts";
import { listModels } from "#services/orchestration/models.ts";
import { listPools } from "#services/orchestration/pools.ts";
import { attempt, parseForm } from "../_shared/form.ts";
import { can, type PageInfo, pageInfo } from "../_shared/page.ts";
import { redirect } from "../_shared/session.ts";
import {
  type DeploymentFilters,
  deployFormErrors,
  deployRequestOf,
  filtersOf,
  ListQuery,
  pageSize,
} from "./_form.ts";
import { deployPool } from "./_model.ts";
import { DeploymentsPage, type DeploymentsPageProps } from "./_view.tsx";

async function render(
  ctx: RequestContext,
  page: PageInfo,
  filters: DeploymentFilters,
  extra: Partial<DeploymentsPageProps> = {},
) {
  const writable = can(page, "deployments:write");
  const [listed, pools, models] = await Promise.all([
    pageOfDeployments(ctx, {
      status: deploymentStates.find((s) => s === filters.status),
      name: filters.name,
      limit: pageSize,
      offset: (filters.page - 1) * pageSize,
    }),
    writable ? listPools(ctx, actorOf(ctx).orgId).then((r) => r.pools.map(deployPool)) : [],
    writable && can(page, "models:read") ? listModels(ctx).then((r) => r.models) : [],
  ]);
  return (
    <DeploymentsPage
      page={page}
      deployments={listed.deployments}
      total={listed.total}
      pageSize={pageSize}
      filters={filters}
      pools={pools}
      models={models}
      {...extra}
    />
  );
}

export const GET = route({
  access: "deployments:read",
  summary: "Deployments page: the list (filtered, paginated) and the deploy form",
  html: true,
  query: ListQuery,
  handler: async ({ ctx, request, query }) => render(ctx, await pageInfo(ctx, request), filtersOf(query)),
});

export const POST = route({
  access: "deployments:write",
  summary: "Deploy from the form; its page follows",
  html: true,
  body: t.Record(t.String(), t.Unknown()),
  handler: async ({ ctx, body, request, set }) => {
    const form = deployRequestOf(body);
    const parsed = parseForm(DeployRequest, form.request);
    const created =
      Object.keys(form.errors).length > 0
        ? { ok: false as const, errors: form.errors }
        : parsed.ok
          ? await attempt(() => deploy(ctx, parsed.value))
          : parsed;
    if (created.ok) return redirect(`/deployments/${created.value.deployment_id}`);
    set.status = 422;
    const errors = deployFormErrors(created.errors);
    if (errors.inference_model && !body.inference_model) errors.registry_model = errors.inference_model;
    return render(ctx, await pageInfo(ctx, request), filtersOf({}), { form: { errors, values: body } });
  },
});
