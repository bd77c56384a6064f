// Training of the guard classifiers, shared by scripts/train-guard-classifier.ts (the shipped models)
// and the leave-one-source-out bench (bench/guard-loso.ts, a model per held-out source), so what is
// measured is how the shipped models were made.
//
// Logistic regression with AdaGrad over the hashed n-grams of features.ts, positives weighted so both
// classes count equally. The threshold stored in the model is chosen on a validation part of the items
// given (a fixed fifth, by a hash of the text): the lowest score at which at most `targetFpr` of the
// validation negatives are flagged. Nothing outside `items` is read, so a held-out source never
// influences the weights or the threshold. Deterministic: a seeded shuffle, no other randomness.

import { rng } from "#scripts/make-tiny-gguf.ts";
import { DIM, forEachFeature } from "#services/guardrails/classifier/features.ts";
import type { LinearModel } from "#services/guardrails/classifier/model.ts";
import type { DatasetItem } from "./load.ts";

export interface TrainOptions {
  epochs: number;
  learningRate: number;
  l2: number;
  /** Texts with fewer n-grams are scaled as if they had this many (features.ts featuresOf). */
  minCount: number;
  /** The share of validation negatives the stored threshold may flag. */
  targetFpr: number;
  /** Train again on all items once the threshold is chosen (the shipped models); the bench skips it. */
  refit: boolean;
  seed: number;
}

export const DEFAULT_OPTIONS: TrainOptions = {
  // More epochs fit the training sources better and the held-out ones no better (measured: 2, 4 and 8).
  epochs: 3,
  learningRate: 0.4,
  l2: 1e-6,
  minCount: 64,
  targetFpr: 0.002,
  refit: true,
  seed: 20261125,
};

/** The options of each shipped model; the bench trains its fold models with the same. */
export const MODEL_OPTIONS: Record<"prompt_injection" | "toxicity", Partial<TrainOptions>> = {
  // An attack needs a sentence at least. At most 0.1 % of validation negatives flagged: sources
  // never seen are flagged far more often (the bench's false-positive rates), so the target is strict.
  prompt_injection: { minCount: 64, targetFpr: 0.001 },
  // Tweets are short and a word or two decides them. Toxicity trades more false positives for recall:
  // the patterns already flag a few per cent of clean tweets.
  toxicity: { minCount: 160, targetFpr: 0.005 },
};

const VALIDATION_PERCENT = 20;

/** FNV-1a of a string: the fixed validation fifth. */
export function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

// A text's buckets are hashed once however many folds train on it (the bench trains ~30 models).
const bucketCache = new WeakMap<DatasetItem, Int32Array>();

/** The n-gram buckets of an item (with repeats), cached per item. */
export function bucketsOf(item: DatasetItem): Int32Array {
  let buckets = bucketCache.get(item);
  if (!buckets) {
    const list: number[] = [];
    forEachFeature(item.text, (b) => list.push(b));
    buckets = Int32Array.from(list);
    bucketCache.set(item, buckets);
  }
  return buckets;
}

function fitWeights(items: readonly DatasetItem[], o: TrainOptions): { weights: Float64Array; bias: number } {
  const buckets = items.map(bucketsOf);
  const values = buckets.map((b) => 1 / Math.sqrt(Math.max(b.length, o.minCount, 1)));
  const positives = items.filter((i) => i.label).length;
  const positiveWeight = (items.length - positives) / Math.max(1, positives);
  const weights = new Float64Array(DIM);
  const squares = new Float64Array(DIM).fill(1e-8);
  let bias = 0;
  let biasSquares = 1e-8;
  const random = rng(o.seed);
  const order = items.map((_, i) => i);
  for (let epoch = 0; epoch < o.epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j] as number, order[i] as number];
    }
    for (const index of order) {
      const bs = buckets[index] as Int32Array;
      const value = values[index] as number;
      const label = (items[index] as DatasetItem).label;
      let z = bias;
      for (let k = 0; k < bs.length; k++) z += (weights[bs[k] as number] as number) * value;
      const g = (1 / (1 + Math.exp(-z)) - (label ? 1 : 0)) * (label ? positiveWeight : 1);
      for (let k = 0; k < bs.length; k++) {
        const b = bs[k] as number;
        const grad = g * value + o.l2 * (weights[b] as number);
        squares[b] = (squares[b] as number) + grad * grad;
        weights[b] = (weights[b] as number) - (o.learningRate * grad) / Math.sqrt(squares[b] as number);
      }
      biasSquares += g * g;
      bias -= (o.learningRate * g) / Math.sqrt(biasSquares);
    }
  }
  return { weights, bias };
}

function quantize(
  trained: { weights: Float64Array; bias: number },
  threshold: number,
  minCount: number,
): LinearModel {
  let max = 0;
  for (const w of trained.weights) max = Math.max(max, Math.abs(w));
  const scale = max / 127 || 1;
  const weights = new Int8Array(DIM);
  for (let i = 0; i < DIM; i++) weights[i] = Math.round((trained.weights[i] as number) / scale);
  return { bias: trained.bias, scale, threshold, minCount, weights };
}

/** The model's probability for an item, from its cached buckets (what scorerFor gives for its text). */
export function scoreItem(model: LinearModel, item: DatasetItem): number {
  const bs = bucketsOf(item);
  let sum = 0;
  for (let k = 0; k < bs.length; k++) sum += model.weights[bs[k] as number] as number;
  const z = model.bias + (model.scale * sum) / Math.sqrt(Math.max(bs.length, model.minCount, 1));
  return 1 / (1 + Math.exp(-z));
}

/** The lowest threshold that flags at most `fpr` of the negatives' scores. */
export function thresholdFor(scores: readonly number[], fpr: number): number {
  const sorted = [...scores].sort((a, b) => b - a);
  const at = sorted[Math.floor(sorted.length * fpr)] ?? 0;
  return Math.min(0.995, Math.max(0.5, at + 1e-4));
}

/** A model trained on `items` alone, its threshold chosen on a validation fifth of them. */
export function train(items: readonly DatasetItem[], options: Partial<TrainOptions> = {}): LinearModel {
  const o = { ...DEFAULT_OPTIONS, ...options };
  const isValidation = (i: DatasetItem) => fnv(`validation:${i.text}`) % 100 < VALIDATION_PERCENT;
  const fit = items.filter((i) => !isValidation(i));
  const first = quantize(fitWeights(fit, o), 0.5, o.minCount);
  const negatives = items.filter((i) => isValidation(i) && !i.label);
  const threshold = thresholdFor(
    negatives.map((i) => scoreItem(first, i)),
    o.targetFpr,
  );
  if (!o.refit) return { ...first, threshold };
  return quantize(fitWeights(items, o), threshold, o.minCount);
}
