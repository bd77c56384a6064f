import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { uploadDocuments, uploadLimits } from "#services/knowledge-base/upload.ts";
import { KnowledgeDocument } from "../../_schemas/knowledge-base.ts";

export const POST = route({
  access: "knowledge_base:write",
  summary: "Upload documents (text, Markdown, HTML) into a collection",
  description:
    "multipart/form-data with `collection_id` and one or more `files`, each at most 10 MiB, at most 20 an upload. " +
    "All or nothing: one empty, unsupported or oversized file and nothing is stored (400, or 413 when only size " +
    "is wrong, naming `files.<index>`). Content already in the collection is not stored again (`duplicate`).",
  bodyLimit: uploadLimits.requestBytes,
  body: t.Object({
    collection_id: t.String({ maxLength: 64 }),
    files: t.Files({ maxItems: uploadLimits.files }),
  }),
  status: 201,
  response: t.Object({
    collection_id: t.String(),
    documents: t.Array(t.Composite([KnowledgeDocument, t.Object({ duplicate: t.Boolean() })])),
    stored: t.Integer(),
    duplicates: t.Integer(),
  }),
  handler: ({ ctx, body }) => uploadDocuments(ctx, body),
});
