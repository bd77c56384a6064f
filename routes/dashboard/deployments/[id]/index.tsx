import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { loadDeploymentPage } from "./_page.ts";
import { DeploymentPage } from "./_view.tsx";

export const GET = route({
  access: "deployments:read",
  summary: "A deployment's page: state, replicas, transitions, actions and live logs",
  html: true,
  params: t.Object({ id: t.String() }),
  handler: async ({ ctx, params, request }) => (
    <DeploymentPage {...(await loadDeploymentPage(ctx, request, params.id))} />
  ),
});
