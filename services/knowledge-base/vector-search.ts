// Vector ranking of passages: cosine similarity between the question's embedding and the passages'
// embeddings by the same deployment. pgvector computes it where the extension exists (PGlite ships
// it; PostgreSQL has it when the server's package is installed); elsewhere this process scans the
// stored arrays itself (vector-memory.ts): the same ranking.
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Database, Executor } from "#db/client.ts";
import { knowledgeChunkEmbeddings, knowledgeChunks, knowledgeDocuments } from "#db/schema/index.ts";
import type { Passage } from "./search.ts";
import { MemoryVectors } from "./vector-memory.ts";

export type VectorEngine = "pgvector" | "memory";

/**
 * Vector ranking for one process and database: which engine ranks (found once), and the memory
 * engine's matrices. Built by the composition root (services/knowledge-base/runtime.ts).
 */
export class VectorSearch {
  #engine: Promise<VectorEngine> | undefined;
  readonly #memory: MemoryVectors;

  constructor(private readonly db: Database) {
    this.#memory = new MemoryVectors(db);
  }

  /**
   * pgvector when it is there or can be created (asked once), memory otherwise. Not within a
   * transaction: a refused CREATE EXTENSION would abort it.
   */
  engine(): Promise<VectorEngine> {
    this.#engine ??= this.db
      .execute(sql`create extension if not exists vector`)
      .then((): VectorEngine => "pgvector")
      .catch((): VectorEngine => "memory");
    return this.#engine;
  }

  async search(options: VectorSearchOptions): Promise<Passage[]> {
    if (options.collectionIds.length === 0) return [];
    const engine = options.engine ?? (await this.engine());
    return engine === "pgvector"
      ? pgvectorSearch(this.db, options)
      : memorySearch(this.db, this.#memory, options);
  }
}

const vectorLiteral = (vector: ArrayLike<number>) => `[${Array.from(vector).join(",")}]`;

const passageColumns = {
  chunkId: knowledgeChunks.id,
  documentId: knowledgeChunks.documentId,
  documentName: knowledgeDocuments.filename,
  heading: knowledgeChunks.heading,
  text: knowledgeChunks.text,
};

export interface VectorSearchOptions {
  deploymentId: string;
  collectionIds: string[];
  query: Float32Array;
  limit: number;
  /** Memory even where pgvector exists (to compare them); default: pgvector when there is one. */
  engine?: VectorEngine;
}

async function pgvectorSearch(
  db: Database,
  options: { deploymentId: string; collectionIds: string[]; query: Float32Array; limit: number },
): Promise<Passage[]> {
  // Both sides are unit length: cosine similarity is the (negated) inner product.
  const similarity = sql<number>`(-(${knowledgeChunkEmbeddings.embedding}::vector <#> ${vectorLiteral(options.query)}::vector))`;
  const rows = await db
    .select({ ...passageColumns, score: similarity })
    .from(knowledgeChunkEmbeddings)
    .innerJoin(knowledgeChunks, eq(knowledgeChunks.id, knowledgeChunkEmbeddings.chunkId))
    .innerJoin(knowledgeDocuments, eq(knowledgeDocuments.id, knowledgeChunks.documentId))
    .where(
      and(
        eq(knowledgeChunkEmbeddings.deploymentId, options.deploymentId),
        inArray(knowledgeChunkEmbeddings.collectionId, options.collectionIds),
        eq(knowledgeChunkEmbeddings.dimensions, options.query.length),
      ),
    )
    .orderBy(sql`${similarity} desc`, knowledgeChunks.id)
    .limit(options.limit);
  return rows.map((r) => ({ ...r, score: Number(r.score) }));
}

async function memorySearch(
  db: Database,
  memory: MemoryVectors,
  options: { deploymentId: string; collectionIds: string[]; query: Float32Array; limit: number },
): Promise<Passage[]> {
  const ranked = await memory.rank(options);
  if (ranked.length === 0) return [];
  const rows = await db
    .select(passageColumns)
    .from(knowledgeChunks)
    .innerJoin(knowledgeDocuments, eq(knowledgeDocuments.id, knowledgeChunks.documentId))
    .where(
      inArray(
        knowledgeChunks.id,
        ranked.map((r) => r.chunkId),
      ),
    );
  const byId = new Map(rows.map((r) => [r.chunkId, r]));
  // A passage deleted since the matrix was read is left out.
  return ranked.flatMap((r) => {
    const row = byId.get(r.chunkId);
    return row ? [{ ...row, score: r.score }] : [];
  });
}

/** Stores passages' embeddings; a passage deleted meanwhile is skipped, not an error. */
export async function storeEmbeddings(
  db: Executor,
  deploymentId: string,
  rows: { chunkId: string; collectionId: string; embedding: Float32Array }[],
): Promise<void> {
  if (rows.length === 0) return;
  const json = JSON.stringify(
    rows.map((r) => ({
      chunk_id: r.chunkId,
      collection_id: r.collectionId,
      embedding: Array.from(r.embedding),
    })),
  );
  await db.execute(sql`
    insert into ${knowledgeChunkEmbeddings} (chunk_id, deployment_id, collection_id, dimensions, embedding)
    select r.chunk_id, ${deploymentId}::uuid, r.collection_id, jsonb_array_length(r.embedding),
           array(select jsonb_array_elements_text(r.embedding)::real)
    from jsonb_to_recordset(${json}::jsonb) as r(chunk_id uuid, collection_id uuid, embedding jsonb)
    where exists (select 1 from ${knowledgeChunks} c where c.id = r.chunk_id)
    on conflict do nothing`);
}
