// Vector ranking of passages: cosine similarity between the question's embedding and the passages'
// embeddings by the same deployment. pgvector computes it where the extension exists (PGlite ships
// it; PostgreSQL has it when the server's package is installed); elsewhere the same ranking comes
// from plain SQL over the stored arrays, slower on large collections but the same answer.
import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { Database, Executor } from "../../db/client.ts";
import { knowledgeChunkEmbeddings, knowledgeChunks, knowledgeDocuments } from "../../db/schema/index.ts";
import type { Passage } from "./search.ts";

export type VectorEngine = "pgvector" | "sql";

const engines = new WeakMap<object, Promise<VectorEngine>>();

/**
 * pgvector when it is there or can be created (once per database handle), plain SQL otherwise. Not
 * within a transaction: a refused CREATE EXTENSION would abort it.
 */
export function vectorEngineOf(db: Database): Promise<VectorEngine> {
  let engine = engines.get(db);
  if (!engine) {
    engine = db
      .execute(sql`create extension if not exists vector`)
      .then((): VectorEngine => "pgvector")
      .catch((): VectorEngine => "sql");
    engines.set(db, engine);
  }
  return engine;
}

const arrayLiteral = (vector: ArrayLike<number>) => `{${Array.from(vector).join(",")}}`;
const vectorLiteral = (vector: ArrayLike<number>) => `[${Array.from(vector).join(",")}]`;

function similarityOf(engine: VectorEngine, query: Float32Array): SQL<number> {
  const column = knowledgeChunkEmbeddings.embedding;
  // Both sides are unit length: cosine similarity is the dot product.
  return engine === "pgvector"
    ? sql<number>`(-(${column}::vector <#> ${vectorLiteral(query)}::vector))`
    : sql<number>`(select sum(a * b) from unnest(${column}, ${arrayLiteral(query)}::real[]) as t(a, b))`;
}

export async function vectorSearch(
  db: Database,
  options: {
    deploymentId: string;
    collectionIds: string[];
    query: Float32Array;
    limit: number;
    /** Plain SQL even where pgvector exists (to compare them); default: pgvector when there is one. */
    engine?: VectorEngine;
  },
): Promise<Passage[]> {
  if (options.collectionIds.length === 0) return [];
  const similarity = similarityOf(options.engine ?? (await vectorEngineOf(db)), options.query);
  const rows = await db
    .select({
      chunkId: knowledgeChunks.id,
      documentId: knowledgeChunks.documentId,
      documentName: knowledgeDocuments.filename,
      heading: knowledgeChunks.heading,
      text: knowledgeChunks.text,
      score: similarity,
    })
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
