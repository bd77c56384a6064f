import { sql } from "drizzle-orm";
import { customType, index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { belongsTo, id } from "./_columns.ts";
import { knowledgeCollections } from "./knowledge-collections.ts";
import { knowledgeDocuments } from "./knowledge-documents.ts";
import { organizations } from "./organizations.ts";

const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });

/**
 * A passage of a document, as retrieval finds it: the heading path and its text, with a full-text
 * vector PostgreSQL keeps up to date itself (a generated column) and a GIN index over it. The same
 * SQL runs on PostgreSQL and on PGlite.
 */
export const knowledgeChunks = pgTable(
  "knowledge_chunks",
  {
    id: id(),
    orgId: belongsTo("org_id", () => organizations.id),
    collectionId: belongsTo("collection_id", () => knowledgeCollections.id),
    documentId: belongsTo("document_id", () => knowledgeDocuments.id),
    /** Position in the document, from 0. */
    ordinal: integer("ordinal").notNull(),
    heading: text("heading").notNull(),
    text: text("text").notNull(),
    tokens: integer("tokens").notNull(),
    /** The heading weighs more than the body (A over D) when ranking. */
    search: tsvector("search")
      .notNull()
      .generatedAlwaysAs(
        sql`setweight(to_tsvector('english', coalesce("heading", '')), 'A') || setweight(to_tsvector('english', "text"), 'D')`,
      ),
  },
  (t) => [
    index("knowledge_chunks_search_idx").using("gin", t.search),
    index("knowledge_chunks_collection_idx").on(t.collectionId),
    index("knowledge_chunks_document_idx").on(t.documentId, t.ordinal),
  ],
);
export type KnowledgeChunkRow = typeof knowledgeChunks.$inferSelect;
