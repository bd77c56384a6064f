import { recordAction } from "../../../../server/dashboard/notice.ts";
import { startDeployment } from "../../../../services/orchestration/deployments.ts";

export const POST = recordAction({
  access: "deployments:write",
  summary: "Start a STOPPED or FAILED deployment",
  act: startDeployment,
  goTo: (id) => `/deployments/${id}`,
});
