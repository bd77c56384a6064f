// The vector ranking where pgvector is not installed: the embeddings of a deployment and collections
// held in this process as one matrix, scanned per question (13,000 passages of 102 dimensions: a few
// milliseconds, where the same ranking in plain SQL took 250 ms on PostgreSQL). The matrix is
// reloaded when the stored embeddings change (their count or newest row), so uploads, deletes and
// re-embedding are seen at the next question.
import { and, count, eq, inArray, max } from "drizzle-orm";
import type { Database } from "#db/client.ts";
import { knowledgeChunkEmbeddings } from "#db/schema/index.ts";

interface Matrix {
  stamp: string;
  chunkIds: string[];
  dimensions: number;
  values: Float32Array;
}

/** Matrices kept, least recently used dropped first: each is rows × dimensions × 4 bytes. */
const maxMatrices = 32;

async function stampOf(db: Database, deploymentId: string, collectionIds: string[]): Promise<string> {
  const [row] = await db
    .select({ n: count(), newest: max(knowledgeChunkEmbeddings.createdAt) })
    .from(knowledgeChunkEmbeddings)
    .where(
      and(
        eq(knowledgeChunkEmbeddings.deploymentId, deploymentId),
        inArray(knowledgeChunkEmbeddings.collectionId, collectionIds),
      ),
    );
  return `${row?.n ?? 0}@${row?.newest ? new Date(row.newest).getTime() : 0}`;
}

async function matrixOf(
  db: Database,
  matrices: Map<string, Matrix>,
  deploymentId: string,
  collectionIds: string[],
  dimensions: number,
): Promise<Matrix> {
  const key = `${deploymentId}:${dimensions}:${[...collectionIds].sort().join(",")}`;
  const stamp = await stampOf(db, deploymentId, collectionIds);
  const cached = matrices.get(key);
  if (cached?.stamp === stamp) {
    matrices.delete(key); // to the back: most recently used
    matrices.set(key, cached);
    return cached;
  }
  const rows = await db
    .select({ chunkId: knowledgeChunkEmbeddings.chunkId, embedding: knowledgeChunkEmbeddings.embedding })
    .from(knowledgeChunkEmbeddings)
    .where(
      and(
        eq(knowledgeChunkEmbeddings.deploymentId, deploymentId),
        inArray(knowledgeChunkEmbeddings.collectionId, collectionIds),
        eq(knowledgeChunkEmbeddings.dimensions, dimensions),
      ),
    );
  const values = new Float32Array(rows.length * dimensions);
  for (const [i, row] of rows.entries()) values.set(row.embedding.map(Number), i * dimensions);
  const matrix = { stamp, chunkIds: rows.map((r) => r.chunkId), dimensions, values };
  matrices.delete(key);
  matrices.set(key, matrix);
  const oldest = matrices.keys().next();
  if (matrices.size > maxMatrices && !oldest.done) matrices.delete(oldest.value);
  return matrix;
}

/** The matrices of one process and database, built by the composition root (runtime.ts). */
export class MemoryVectors {
  readonly #matrices = new Map<string, Matrix>();

  constructor(private readonly db: Database) {}

  /** The `limit` passages most similar to `query` (unit vectors: dot product), best first. */
  rank(options: RankingOptions): Promise<{ chunkId: string; score: number }[]> {
    return memoryRanking(this.db, this.#matrices, options);
  }
}

interface RankingOptions {
  deploymentId: string;
  collectionIds: string[];
  query: Float32Array;
  limit: number;
}

async function memoryRanking(
  db: Database,
  matrices: Map<string, Matrix>,
  options: RankingOptions,
): Promise<{ chunkId: string; score: number }[]> {
  const { query, limit } = options;
  const m = await matrixOf(db, matrices, options.deploymentId, options.collectionIds, query.length);
  const best: { index: number; score: number }[] = [];
  for (let row = 0; row < m.chunkIds.length; row++) {
    let score = 0;
    const offset = row * m.dimensions;
    for (let d = 0; d < m.dimensions; d++) score += (m.values[offset + d] ?? 0) * (query[d] ?? 0);
    const last = best[best.length - 1];
    if (best.length < limit || (last !== undefined && score > last.score)) {
      let at = best.length;
      while (at > 0 && (best[at - 1]?.score ?? Infinity) < score) at--;
      best.splice(at, 0, { index: row, score });
      if (best.length > limit) best.pop();
    }
  }
  return best.flatMap((b) => {
    const chunkId = m.chunkIds[b.index];
    return chunkId === undefined ? [] : [{ chunkId, score: b.score }];
  });
}
