import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { DeploymentLive } from "./_live.tsx";
import { loadDeploymentPage } from "./_page.ts";

export const GET = route({
  access: "deployments:read",
  summary: "A deployment's state, actions, replicas and transitions (polled by its page)",
  html: true,
  params: t.Object({ id: t.String() }),
  handler: async ({ ctx, params, request }) => (
    <DeploymentLive {...(await loadDeploymentPage(ctx, request, params.id))} />
  ),
});
