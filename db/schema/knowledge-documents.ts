import { index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { belongsTo, createdAt, id } from "./_columns.ts";
import { knowledgeCollections } from "./knowledge-collections.ts";
import { organizations } from "./organizations.ts";

/** An uploaded document's raw text; chunks and embeddings come from it later. */
export const knowledgeDocuments = pgTable(
  "knowledge_documents",
  {
    id: id(),
    orgId: belongsTo("org_id", () => organizations.id),
    collectionId: belongsTo("collection_id", () => knowledgeCollections.id),
    filename: text("filename").notNull(),
    contentType: text("content_type").notNull(),
    sizeBytes: integer("size_bytes").notNull(),
    /** SHA-256 of the content, hex: the same content is stored once per collection. */
    contentSha256: text("content_sha256").notNull(),
    content: text("content").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("knowledge_documents_collection_sha_key").on(t.collectionId, t.contentSha256),
    index("knowledge_documents_collection_created_idx").on(t.collectionId, t.createdAt),
  ],
);
export type KnowledgeDocumentRow = typeof knowledgeDocuments.$inferSelect;
