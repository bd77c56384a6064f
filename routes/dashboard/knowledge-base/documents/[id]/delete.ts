import { t } from "elysia";
import { redirectWithNotice } from "#routes/dashboard/_shared/notice.ts";
import { route } from "#server/http/route.ts";
import { deleteDocument, getDocument } from "#services/knowledge-base/documents.ts";

export const POST = route({
  access: "knowledge_base:write",
  summary: "Delete a document and its passages (after the page's confirmation)",
  html: true,
  params: t.Object({ id: t.String() }),
  handler: async ({ ctx, params }) => {
    const { collection_id } = await getDocument(ctx, params.id);
    await deleteDocument(ctx, params.id);
    return redirectWithNotice(`/knowledge-base/${collection_id}`, "document-deleted");
  },
});
