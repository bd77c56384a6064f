import { t } from "elysia";
import { KnowledgeDocument } from "#routes/filtration/_schemas/knowledge-base.ts";
import { route } from "#server/http/route.ts";
import { deleteDocument, getDocument } from "#services/knowledge-base/documents.ts";

const params = t.Object({ id: t.String() });

export const GET = route({
  access: "knowledge_base:read",
  summary: "A document with its text",
  params,
  response: t.Composite([KnowledgeDocument, t.Object({ content: t.String() })]),
  handler: ({ ctx, params }) => getDocument(ctx, params.id),
});

export const DELETE = route({
  access: "knowledge_base:write",
  summary: "Delete a document",
  params,
  response: t.Object({ id: t.String(), deleted: t.Literal(true) }),
  handler: ({ ctx, params }) => deleteDocument(ctx, params.id),
});
