import { t } from "elysia";
import { AppError } from "#core/errors.ts";
import { wsRoute } from "#server/http/route.ts";
import { openLogStream, visibleDeploymentId } from "#services/orchestration/log-stream.ts";

/**
 * The deployment's live log for its page: the orchestration gateway's stream (the last 100 lines, then
 * each new one) on the dashboard's origin, authenticated by the session cookie. A page of another
 * site cannot open it: the cookie is SameSite=Strict, and the Origin must be this host.
 */
export const WS = wsRoute({
  access: "deployments:read",
  summary: "A deployment's logs as they come, for its dashboard page",
  params: t.Object({ id: t.String() }),
  accept: async ({ ctx, params, request }) => {
    const origin = request.headers.get("origin");
    if (origin && new URL(origin).host !== request.headers.get("host"))
      throw new AppError("forbidden", "a log stream is opened by the dashboard's own pages only");
    return { ctx, deploymentId: await visibleDeploymentId(ctx, params.id) };
  },
  open: ({ ctx, deploymentId }, socket) => openLogStream(ctx, deploymentId, (entry) => socket.send(entry)),
});
