import { recordAction } from "../../../../server/dashboard/notice.ts";
import { deletePool } from "../../../../services/orchestration/pools.ts";

export const POST = recordAction({
  access: "pools:write",
  summary: "Delete a pool (after the page's confirmation)",
  act: deletePool,
  goTo: () => "/pools",
  notice: "pool-deleting",
});
