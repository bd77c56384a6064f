import { startDeployment } from "#services/orchestration/deployment-commands.ts";
import { recordAction } from "../../_shared/notice.ts";

export const POST = recordAction({
  access: "deployments:write",
  summary: "Start a STOPPED or FAILED deployment",
  act: startDeployment,
  goTo: (id) => `/deployments/${id}`,
});
