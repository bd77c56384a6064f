import { recordAction } from "../../../../server/dashboard/notice.ts";
import { deleteDeployment } from "../../../../services/orchestration/deployments.ts";

export const POST = recordAction({
  access: "deployments:write",
  summary: "Delete a STOPPED or FAILED deployment (after the page's confirmation)",
  act: deleteDeployment,
  goTo: () => "/deployments",
  notice: "deployment-deleted",
});
