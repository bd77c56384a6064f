// Training of the perplexity filter's character language model (char-lm.ts), for the
// leave-one-source-out measurement of `bun bench/guardrails.ts perplexity` (perplexity.ts).
//
// It learns from the benign items given (label false) and nothing else: it never sees an attack, so
// holding a source out cannot leak it. Counts are of hashed n-grams (orders 1..ORDER) of four fifths
// of those texts; the threshold is the lowest score at which at most `targetFpr` of the other fifth
// (the validation fifth of train.ts, by a hash of the text) is flagged.
import { type CharLm, forEachPosition, gibberishScore, LM_BITS, LM_ORDER, LM_WINDOW } from "./char-lm.ts";
import type { DatasetItem } from "./load.ts";
import { fnv } from "./train.ts";

export interface LmOptions {
  bits: number;
  order: number;
  window: number;
  /** n-grams seen fewer times are left out. 1 (all kept, 2^22 buckets) separated the suffixes better than 2 (2^20). */
  minCount: number;
  backoff: number;
  targetFpr: number;
}

export const LM_OPTIONS: LmOptions = {
  bits: LM_BITS,
  order: LM_ORDER,
  window: LM_WINDOW,
  minCount: 1,
  backoff: 1.5,
  targetFpr: 0.001,
};

const COUNT_BITS = 23;
const QUANTUM = 1 / 12;

function isValidation(item: DatasetItem): boolean {
  return fnv(`validation:${item.text}`) % 100 < 20;
}

/** A character LM of the benign items of `items`, its threshold chosen on their validation fifth. */
export function trainCharLm(items: readonly DatasetItem[], options: Partial<LmOptions> = {}): CharLm {
  const o = { ...LM_OPTIONS, ...options };
  const benign = items.filter((i) => !i.label);
  const fit = benign.filter((i) => !isValidation(i)).map((i) => i.text);
  const counts = new Uint32Array(1 << COUNT_BITS);
  const cmask = (1 << COUNT_BITS) - 1;
  const hashes = new Uint32Array(8);
  let total = 0;
  for (const text of fit) {
    forEachPosition(text, o.order, hashes, (depth) => {
      total++;
      for (let k = 0; k < depth; k++) {
        const at = (hashes[k] as number) & cmask;
        counts[at] = (counts[at] as number) + 1;
      }
    });
  }
  const mask = (1 << o.bits) - 1;
  const costs = new Uint8Array(1 << o.bits);
  const previous = new Uint32Array(8);
  const logTotal = Math.log2(total);
  for (const text of fit) {
    forEachPosition(text, o.order, hashes, (depth) => {
      for (let k = 0; k < depth; k++) {
        const count = counts[(hashes[k] as number) & cmask] as number;
        if (count < o.minCount) continue;
        const context = k === 0 ? logTotal : Math.log2(counts[(previous[k - 1] as number) & cmask] as number);
        const stored = Math.min(255, Math.max(1, Math.round((context - Math.log2(count)) / QUANTUM) + 1));
        const at = (hashes[k] as number) & mask;
        const old = costs[at] as number;
        costs[at] = old === 0 ? stored : Math.min(old, stored);
      }
      previous.set(hashes);
    });
  }
  const model: CharLm = {
    bits: o.bits,
    order: o.order,
    window: o.window,
    threshold: 0,
    backoff: o.backoff,
    quantum: QUANTUM,
    costs,
  };
  model.threshold = lmThreshold(model, items, o.targetFpr);
  return model;
}

/** The lowest score at which at most `targetFpr` of the benign validation fifth of `items` is flagged. */
export function lmThreshold(model: CharLm, items: readonly DatasetItem[], targetFpr: number): number {
  const scores = items
    .filter((i) => !i.label && isValidation(i))
    .map((i) => gibberishScore(model, i.text))
    .sort((a, b) => b - a);
  return (scores[Math.floor(scores.length * targetFpr)] ?? 0) + 1e-3;
}
