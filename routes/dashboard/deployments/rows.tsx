import { deploymentStates } from "#core/domain.ts";
import { route } from "#server/http/route.ts";
import { pageOfDeployments } from "#services/orchestration/deployment-queries.ts";
import { filtersOf, ListQuery, pageSize } from "./_form.ts";
import { DeploymentRows } from "./_view.tsx";

export const GET = route({
  access: "deployments:read",
  summary: "The deployments table's rows (polled: badges move without a reload)",
  html: true,
  query: ListQuery,
  handler: async ({ ctx, query }) => {
    const filters = filtersOf(query);
    const { deployments } = await pageOfDeployments(ctx, {
      status: deploymentStates.find((s) => s === filters.status),
      name: filters.name,
      limit: pageSize,
      offset: (filters.page - 1) * pageSize,
    });
    return <DeploymentRows deployments={deployments} filters={filters} />;
  },
});
