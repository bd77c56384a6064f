import { t } from "elysia";
import { redirect } from "../../../../server/dashboard-session.ts";
import { route } from "../../../../server/http/route.ts";
import { startDeployment } from "../../../../services/orchestration/deployments.ts";

export const POST = route({
  access: "deployments:write",
  summary: "Start a STOPPED or FAILED deployment",
  html: true,
  params: t.Object({ id: t.String() }),
  handler: async ({ ctx, params }) => {
    await startDeployment(ctx, params.id);
    return redirect(`/deployments/${params.id}`);
  },
});
