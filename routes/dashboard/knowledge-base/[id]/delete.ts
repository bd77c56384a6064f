import { deleteCollection } from "#services/knowledge-base/collections.ts";
import { recordAction } from "../../_shared/notice.ts";

export const POST = recordAction({
  access: "knowledge_base:write",
  summary: "Delete a collection (after the page's confirmation)",
  act: deleteCollection,
  goTo: () => "/knowledge-base",
  notice: "collection-deleted",
});
