// Retrieval: the passages of an organization's collections that best answer a question. Full-text
// ranking always (PostgreSQL's tsvector, the same SQL on PGlite); the question's words are OR-ed, so a
// passage sharing some of them ranks by how many and how often, instead of needing all of them.
// When a vector ranking is given too, both are fused by reciprocal rank.
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { Executor } from "#db/client.ts";
import { knowledgeChunks, knowledgeDocuments } from "#db/schema/index.ts";

export interface Passage {
  chunkId: string;
  documentId: string;
  documentName: string;
  heading: string;
  text: string;
  /** 0..1: the full-text rank (normalised), or the fused score when vectors took part. */
  score: number;
}

export interface SearchOptions {
  collectionIds: string[];
  topK: number;
  minScore: number;
}

/** How many candidates each ranking offers to the fusion, per passage finally wanted. */
const candidatesPerResult = 4;

export async function fullTextSearch(
  db: Executor,
  orgId: string,
  question: string,
  options: SearchOptions & { limit?: number },
): Promise<Passage[]> {
  if (options.collectionIds.length === 0 || question.trim() === "") return [];
  const query = sql`replace(plainto_tsquery('english', ${question})::text, ' & ', ' | ')::tsquery`;
  const allWords = sql`plainto_tsquery('english', ${question})`;
  // Measured on 1,500 manual pages (bench/retrieval.ts): the OR-ed rank alone favours long passages
  // full of common words (recall@5 0.49); normalising by length and adding 1 when every word of the
  // question is present lifts it to 0.98. Halved, the score stays within 0..1 for min_score:
  // 0.5 and above means every word is there.
  const score = sql<number>`((ts_rank(${knowledgeChunks.search}, ${query}, 1|32) + case when ${knowledgeChunks.search} @@ ${allWords} then 1 else 0 end) / 2)`;
  const rows = await db
    .select({
      chunkId: knowledgeChunks.id,
      documentId: knowledgeChunks.documentId,
      documentName: knowledgeDocuments.filename,
      heading: knowledgeChunks.heading,
      text: knowledgeChunks.text,
      score,
    })
    .from(knowledgeChunks)
    .innerJoin(knowledgeDocuments, eq(knowledgeDocuments.id, knowledgeChunks.documentId))
    .where(
      and(
        eq(knowledgeChunks.orgId, orgId),
        inArray(knowledgeChunks.collectionId, options.collectionIds),
        sql`${knowledgeChunks.search} @@ ${query}`,
      ),
    )
    .orderBy(desc(score), knowledgeChunks.id)
    .limit(options.limit ?? options.topK);
  return rows.map((r) => ({ ...r, score: Number(r.score) })).filter((r) => r.score >= options.minScore);
}

/**
 * Reciprocal rank fusion (Cormack et al., k = 60): each ranking adds 1 / (k + rank) for a passage;
 * scores are scaled so a passage first in every ranking scores 1.
 */
export function fuseByRank(rankings: Passage[][], topK: number, k = 60): Passage[] {
  const fused = new Map<string, Passage>();
  for (const ranking of rankings) {
    ranking.forEach((passage, index) => {
      const add = 1 / (k + index + 1);
      const seen = fused.get(passage.chunkId);
      fused.set(passage.chunkId, { ...(seen ?? passage), score: (seen?.score ?? 0) + add });
    });
  }
  const best = rankings.length / (k + 1);
  return [...fused.values()]
    .map((p) => ({ ...p, score: p.score / best }))
    .sort((a, b) => b.score - a.score)
    .slice(0, topK);
}

/** Candidates each ranking offers to the fusion, for `topK` passages finally wanted. */
export const candidatesFor = (topK: number) => topK * candidatesPerResult;

/**
 * The passages to use from the full-text candidates (ranked, `candidatesFor(topK)` of them, any
 * score), fused with a vector ranking when there is one; `min_score` applies to the final scores.
 */
export function choosePassages(
  text: Passage[],
  vector: Passage[] | undefined,
  options: SearchOptions,
): Passage[] {
  const chosen = vector ? fuseByRank([text, vector], options.topK) : text.slice(0, options.topK);
  return chosen.filter((p) => p.score >= options.minScore);
}

/** Passages as the template's {{context}}: numbered, each with its document's name to cite. */
export function formatPassages(passages: Passage[]): string {
  return passages.map((p, i) => `[${i + 1}] (${p.documentName})\n${p.text}`).join("\n\n");
}
