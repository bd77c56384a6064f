import { t } from "elysia";

export const Collection = t.Object({
  id: t.String(),
  name: t.String(),
  description: t.Nullable(t.String()),
  document_count: t.Integer(),
  created_at: t.String({ format: "date-time" }),
});

export const KnowledgeDocument = t.Object({
  id: t.String(),
  collection_id: t.String(),
  filename: t.String(),
  content_type: t.String({ description: "text/plain, text/markdown or text/html" }),
  size_bytes: t.Integer(),
  content_sha256: t.String(),
  created_at: t.String({ format: "date-time" }),
});
