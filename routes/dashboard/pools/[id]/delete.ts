import { deletePool } from "#services/orchestration/pools.ts";
import { recordAction } from "../../_shared/notice.ts";

export const POST = recordAction({
  access: "pools:write",
  summary: "Delete a pool (after the page's confirmation)",
  act: deletePool,
  goTo: () => "/pools",
  notice: "pool-deleting",
});
