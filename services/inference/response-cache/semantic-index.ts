// The semantic cache's questions: per organization and deployment, the unit vectors of the single-turn
// questions whose answers were stored, searched by brute force (a dot product per entry: max_entries of
// 10,000 vectors of 384 floats is about 4 M multiply-adds, a few milliseconds). Kept in this process's
// memory: each gateway process learns the questions it answered itself, while the answers they point to
// live in the shared store (Redis or the database), so a process never serves an answer that expired.

export interface IndexedQuestion {
  /** The neighbourhood (key.ts contextKey): system prompt, parameters; only these are compared. */
  contextKey: string;
  vector: Float32Array;
  /** The exact key of the stored answer. */
  key: string;
  storedAtMs: number;
}

export class SemanticIndex {
  private readonly scopes = new Map<string, IndexedQuestion[]>();

  nearest(
    scope: string,
    contextKey: string,
    vector: Float32Array,
    notBeforeMs: number,
  ): { key: string; similarity: number } | undefined {
    let best: { key: string; similarity: number } | undefined;
    for (const entry of this.scopes.get(scope) ?? []) {
      if (entry.contextKey !== contextKey || entry.storedAtMs < notBeforeMs) continue;
      if (entry.vector.length !== vector.length) continue;
      const similarity = dot(entry.vector, vector);
      if (!best || similarity > best.similarity) best = { key: entry.key, similarity };
    }
    return best;
  }

  add(scope: string, question: IndexedQuestion, maxEntries: number): void {
    let entries = this.scopes.get(scope);
    if (!entries) {
      entries = [];
      this.scopes.set(scope, entries);
    }
    const same = entries.findIndex((e) => e.key === question.key);
    if (same >= 0) entries.splice(same, 1);
    entries.push(question);
    if (entries.length > maxEntries) entries.splice(0, entries.length - maxEntries);
  }
}

/** Cosine similarity of two unit vectors. */
function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}
