import { index, integer, pgTable, primaryKey, real, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./_columns.ts";
import { deployments } from "./deployments.ts";
import { knowledgeChunks } from "./knowledge-chunks.ts";
import { knowledgeCollections } from "./knowledge-collections.ts";

/**
 * A passage's embedding by one embedding deployment (the `rag` policy's `embedding_deployment`), unit
 * length so cosine similarity is a dot product. Stored as `real[]` rather than pgvector's `vector`, so
 * the same table exists where pgvector is not installed; where it is (PGlite always), searches cast to
 * `vector` and let pgvector compute the distances.
 */
export const knowledgeChunkEmbeddings = pgTable(
  "knowledge_chunk_embeddings",
  {
    chunkId: uuid("chunk_id")
      .notNull()
      .references(() => knowledgeChunks.id, { onDelete: "cascade" }),
    deploymentId: uuid("deployment_id")
      .notNull()
      .references(() => deployments.id, { onDelete: "cascade" }),
    /** Copied from the chunk, so a search filters without joining the chunks first. */
    collectionId: uuid("collection_id")
      .notNull()
      .references(() => knowledgeCollections.id, { onDelete: "cascade" }),
    dimensions: integer("dimensions").notNull(),
    embedding: real("embedding").array().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.chunkId, t.deploymentId] }),
    index("knowledge_chunk_embeddings_search_idx").on(t.deploymentId, t.collectionId),
  ],
);
export type KnowledgeChunkEmbeddingRow = typeof knowledgeChunkEmbeddings.$inferSelect;
