import { recordAction } from "../../../../server/dashboard/notice.ts";
import { terminateDeployment } from "../../../../services/orchestration/deployments.ts";

export const POST = recordAction({
  access: "deployments:write",
  summary: "Terminate a RUNNING deployment (after the page's confirmation)",
  act: terminateDeployment,
  goTo: (id) => `/deployments/${id}`,
  notice: "deployment-terminating",
});
