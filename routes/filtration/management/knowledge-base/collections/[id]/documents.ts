import { t } from "elysia";
import { KnowledgeDocument } from "#routes/filtration/_schemas/knowledge-base.ts";
import { route } from "#server/http/route.ts";
import { listDocuments } from "#services/knowledge-base/documents.ts";

export const GET = route({
  access: "knowledge_base:read",
  summary: "The documents of a collection, newest first (without their text)",
  params: t.Object({ id: t.String() }),
  response: t.Object({ documents: t.Array(KnowledgeDocument) }),
  handler: ({ ctx, params }) => listDocuments(ctx, params.id),
});
