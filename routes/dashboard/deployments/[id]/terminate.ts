import { terminateDeployment } from "#services/orchestration/deployment-commands.ts";
import { recordAction } from "../../_shared/notice.ts";

export const POST = recordAction({
  access: "deployments:write",
  summary: "Terminate a RUNNING deployment (after the page's confirmation)",
  act: terminateDeployment,
  goTo: (id) => `/deployments/${id}`,
  notice: "deployment-terminating",
});
