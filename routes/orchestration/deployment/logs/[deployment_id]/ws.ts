import { DeploymentId } from "#routes/orchestration/_schemas/deployment.ts";
import { wsRoute } from "#server/http/route.ts";
import { openLogStream, visibleDeploymentId } from "#services/orchestration/log-stream.ts";

export const WS = wsRoute({
  access: "deployments:read",
  summary:
    "A deployment's logs as they come (the last 100 lines first): one JSON {ts, replica, stream, line} a message",
  params: DeploymentId,
  accept: async ({ ctx, params }) => ({
    ctx,
    deploymentId: await visibleDeploymentId(ctx, params.deployment_id),
  }),
  open: ({ ctx, deploymentId }, socket) => openLogStream(ctx, deploymentId, (entry) => socket.send(entry)),
});
