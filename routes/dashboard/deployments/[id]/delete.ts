import { deleteDeployment } from "#services/orchestration/deployment-commands.ts";
import { recordAction } from "../../_shared/notice.ts";

export const POST = recordAction({
  access: "deployments:write",
  summary: "Delete a STOPPED or FAILED deployment (after the page's confirmation)",
  act: deleteDeployment,
  goTo: () => "/deployments",
  notice: "deployment-deleted",
});
