import { index, integer, pgTable, primaryKey, real } from "drizzle-orm/pg-core";
import { belongsTo, createdAt } from "./_columns.ts";
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
    chunkId: belongsTo("chunk_id", () => knowledgeChunks.id),
    deploymentId: belongsTo("deployment_id", () => deployments.id),
    /** Copied from the chunk, so a search filters without joining the chunks first. */
    collectionId: belongsTo("collection_id", () => knowledgeCollections.id),
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
