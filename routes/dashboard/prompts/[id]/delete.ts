import { deleteTemplate } from "#services/prompts/templates.ts";
import { recordAction } from "../../_shared/notice.ts";

export const POST = recordAction({
  access: "prompts:write",
  summary: "Delete a prompt template (after the page's confirmation)",
  act: deleteTemplate,
  goTo: () => "/prompts",
  notice: "template-deleted",
});
