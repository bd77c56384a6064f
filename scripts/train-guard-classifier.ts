// Trains the two guard classifiers (prompt injection, toxicity) from bench/guard-datasets and writes
// services/guardrails/classifier/{prompt-injection,toxicity}.bin. Deterministic: a seeded shuffle,
// no other randomness, so the same data gives the same bytes.
//
// Logistic regression with AdaGrad over the hashed n-grams of features.ts, positives weighted so both
// classes count equally. The threshold stored in the model (the default `classifier_threshold`) is
// chosen on a validation part of the training split: the lowest score at which at most TARGET_FPR of
// the validation negatives are flagged; then the model is trained again on the whole training split.
// Held-out items are never read here except to print the figures at the end.
// Run: bun scripts/train-guard-classifier.ts
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type DatasetItem, examplesFor } from "#bench/guard-datasets/load.ts";
import { DIM, featuresOf } from "#services/guardrails/classifier/features.ts";
import { encodeModel, type LinearModel, scorerFor } from "#services/guardrails/classifier/model.ts";
import { rng } from "./make-tiny-gguf.ts";

const EPOCHS = Number(process.env.EPOCHS ?? 12);
const LEARNING_RATE = 0.4;
const L2 = Number(process.env.L2 ?? 1e-6);
const TARGET_FPR = Number(process.env.TARGET_FPR ?? 0.001);
const VALIDATION_PERCENT = 20;
const SEED = 20261125;

interface Example {
  buckets: Int32Array;
  value: number;
  label: boolean;
}

function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function train(items: readonly DatasetItem[], minCount: number): { weights: Float64Array; bias: number } {
  const examples: Example[] = items.map((i) => ({ ...featuresOf(i.text, minCount), label: i.label }));
  const positives = examples.filter((e) => e.label).length;
  const positiveWeight = (examples.length - positives) / Math.max(1, positives);
  const weights = new Float64Array(DIM);
  const squares = new Float64Array(DIM).fill(1e-8);
  let bias = 0;
  let biasSquares = 1e-8;
  const random = rng(SEED);
  const order = examples.map((_, i) => i);
  for (let epoch = 0; epoch < EPOCHS; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j] as number, order[i] as number];
    }
    for (const index of order) {
      const e = examples[index] as Example;
      let z = bias;
      for (const b of e.buckets) z += (weights[b] as number) * e.value;
      const p = 1 / (1 + Math.exp(-z));
      const g = (p - (e.label ? 1 : 0)) * (e.label ? positiveWeight : 1);
      for (const b of e.buckets) {
        const grad = g * e.value + L2 * (weights[b] as number);
        squares[b] = (squares[b] as number) + grad * grad;
        weights[b] = (weights[b] as number) - (LEARNING_RATE * grad) / Math.sqrt(squares[b] as number);
      }
      biasSquares += g * g;
      bias -= (LEARNING_RATE * g) / Math.sqrt(biasSquares);
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

/** The lowest threshold that flags at most `fpr` of the negatives. */
function thresholdFor(scores: number[], fpr: number): number {
  const sorted = [...scores].sort((a, b) => b - a);
  const allowed = Math.floor(sorted.length * fpr);
  const at = sorted[allowed] ?? 0;
  return Math.min(0.99, Math.max(0.5, at + 1e-4));
}

function report(name: string, model: LinearModel, items: readonly DatasetItem[]): void {
  const score = scorerFor(model);
  const by = new Map<string, { n: number; flagged: number; label: boolean }>();
  for (const item of items) {
    const s = by.get(item.source) ?? { n: 0, flagged: 0, label: item.label };
    s.n++;
    if (score(item.text) >= model.threshold) s.flagged++;
    by.set(item.source, s);
  }
  console.log(`${name} held-out, threshold ${model.threshold.toFixed(3)}:`);
  for (const [source, s] of by)
    console.log(
      `  ${s.label ? "+" : "-"} ${source.padEnd(32)} ${String(s.flagged).padStart(4)}/${s.n}  ${((100 * s.flagged) / s.n).toFixed(1)}%`,
    );
}

function build(classifier: "prompt_injection" | "toxicity", file: string, minCount: number): void {
  const all = examplesFor(classifier);
  const trainSplit = all.filter((i) => i.split === "train");
  const isValidation = (i: DatasetItem) => fnv(`validation:${i.text}`) % 100 < VALIDATION_PERCENT;
  const fit = trainSplit.filter((i) => !isValidation(i));
  const validation = trainSplit.filter(isValidation);
  const first = quantize(train(fit, minCount), 0.5, minCount);
  const score = scorerFor(first);
  const threshold = thresholdFor(
    validation.filter((i) => !i.label).map((i) => score(i.text)),
    TARGET_FPR,
  );
  const model = quantize(train(trainSplit, minCount), threshold, minCount);
  writeFileSync(join(import.meta.dir, "../services/guardrails/classifier", file), encodeModel(model));
  report(
    classifier,
    model,
    all.filter((i) => i.split === "heldout"),
  );
}

if (import.meta.main) {
  // Tweets are short and a word or two decides them; an attack needs a sentence at least.
  build("prompt_injection", "prompt-injection.bin", Number(process.env.INJECTION_MIN_COUNT ?? 64));
  build("toxicity", "toxicity.bin", Number(process.env.TOXICITY_MIN_COUNT ?? 160));
}
