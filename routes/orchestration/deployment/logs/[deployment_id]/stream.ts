import { t } from "elysia";
import { DeploymentId } from "#routes/orchestration/_schemas/deployment.ts";
import { route } from "#server/http/route.ts";
import { logStreamInfo } from "#services/orchestration/log-stream.ts";

export const GET = route({
  access: "deployments:read",
  summary: "Where to stream a deployment's logs: a WebSocket sending {ts, replica, stream, line} messages",
  params: DeploymentId,
  response: t.Object({ url: t.String(), format: t.Literal("json") }),
  handler: ({ ctx, params, request }) =>
    logStreamInfo(ctx, params.deployment_id, request.url, request.headers),
});
