import type { Finding, Scanner } from "#services/guardrails/scanner.ts";

export interface CorpusItem {
  text: string;
  /** True when the item holds what the scanner should find. */
  label: boolean;
  /** Where the text comes from (package@version:file); see bench/guardrails-corpus/README.md. */
  source: string;
  category: string;
  /** PII only: where each labelled value is. */
  spans?: { type: string; start: number; end: number }[];
}

export interface Counts {
  tp: number;
  fp: number;
  fn: number;
  precision: number;
  recall: number;
}

function counts(tp: number, fp: number, fn: number): Counts {
  return {
    tp,
    fp,
    fn,
    precision: tp + fp === 0 ? 1 : tp / (tp + fp),
    recall: tp + fn === 0 ? 1 : tp / (tp + fn),
  };
}

/**
 * Span-level PII scoring per type: a labelled value is found when a finding of its type covers it
 * (its start to its end, give or take a leading "+" or bracket); every other finding of that type is
 * a false positive.
 */
export function scorePii(items: readonly CorpusItem[], scanner: Scanner): Record<string, Counts> {
  const tally = new Map<string, { tp: number; fp: number; fn: number }>();
  const of = (t: string) => {
    const c = tally.get(t) ?? { tp: 0, fp: 0, fn: 0 };
    tally.set(t, c);
    return c;
  };
  for (const item of items) {
    const found: Finding[] = scanner.scan(item.text, { action: "redact" });
    const used = new Set<Finding>();
    for (const span of item.spans ?? []) {
      const hit = found.find(
        (f) => f.type === span.type && f.start <= span.start + 1 && f.end >= span.end - 1 && !used.has(f),
      );
      if (hit) {
        used.add(hit);
        of(span.type).tp++;
      } else of(span.type).fn++;
    }
    for (const f of found) if (!used.has(f)) of(f.type).fp++;
  }
  const result: Record<string, Counts> = {};
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const [t, c] of [...tally].sort()) {
    result[t] = counts(c.tp, c.fp, c.fn);
    tp += c.tp;
    fp += c.fp;
    fn += c.fn;
  }
  result.all = counts(tp, fp, fn);
  return result;
}

export interface DocumentScores {
  all: Counts;
  /** False-positive rate on the negatives. */
  fpr: number;
  /** Recall of the positives of each category, false-positive rate of the negatives of each. */
  byCategory: Record<string, { label: boolean; n: number; flagged: number; rate: number }>;
}

/** Document-level scoring: an item is flagged when the scanner returns any finding. */
export function scoreDocuments(
  items: readonly CorpusItem[],
  scanner: Scanner,
  threshold?: number,
): DocumentScores {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let negatives = 0;
  const cats = new Map<string, { label: boolean; n: number; flagged: number }>();
  for (const item of items) {
    const config =
      threshold === undefined ? { action: "block" as const } : { action: "block" as const, threshold };
    const flagged = scanner.scan(item.text, config).length > 0;
    if (item.label && flagged) tp++;
    else if (item.label) fn++;
    else {
      negatives++;
      if (flagged) fp++;
    }
    const key = `${item.label ? "+" : "-"} ${item.category}`;
    const c = cats.get(key) ?? { label: item.label, n: 0, flagged: 0 };
    c.n++;
    if (flagged) c.flagged++;
    cats.set(key, c);
  }
  const byCategory: DocumentScores["byCategory"] = {};
  for (const [k, c] of [...cats].sort()) byCategory[k] = { ...c, rate: c.flagged / c.n };
  return { all: counts(tp, fp, fn), fpr: negatives === 0 ? 0 : fp / negatives, byCategory };
}
