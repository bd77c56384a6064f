// A logistic-regression model over the hashed n-grams of features.ts, and its file format.
// Weights are stored as one signed byte per bucket with a common scale (2^18 buckets: 256 KiB a
// model); the file is small enough to sit in the repository and is rebuilt by
// scripts/train-guard-classifier.ts from the data in bench/guard-datasets.
//
// File: "GCLF" | u8 version (1) | u8 bits | u16 min_count | f32 bias | f32 scale | f32 threshold |
// i8[2^bits] weights (little-endian throughout).
import { readFileSync } from "node:fs";
import { BITS, featureBuckets } from "./features.ts";

const MAGIC = 0x464c4347; // "GCLF" little-endian
const HEADER = 20;

export interface LinearModel {
  bias: number;
  /** weight = scale × stored byte. */
  scale: number;
  /** The decision threshold chosen at training (held-out data never seen): the default classifier_threshold. */
  threshold: number;
  /** Texts with fewer n-grams are scaled as if they had this many (see featuresOf). */
  minCount: number;
  weights: Int8Array;
}

export function encodeModel(model: LinearModel): Uint8Array {
  const bytes = new Uint8Array(HEADER + model.weights.length);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint8(4, 1);
  view.setUint8(5, BITS);
  view.setUint16(6, model.minCount, true);
  view.setFloat32(8, model.bias, true);
  view.setFloat32(12, model.scale, true);
  view.setFloat32(16, model.threshold, true);
  bytes.set(new Uint8Array(model.weights.buffer, model.weights.byteOffset, model.weights.length), HEADER);
  return bytes;
}

export function decodeModel(bytes: Uint8Array): LinearModel {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < HEADER || view.getUint32(0, true) !== MAGIC || view.getUint8(4) !== 1)
    throw new Error("not a guard classifier model (GCLF v1)");
  const bits = view.getUint8(5);
  if (bits !== BITS || bytes.byteLength !== HEADER + (1 << bits))
    throw new Error(`guard classifier model has ${bits} bits, features.ts uses ${BITS}`);
  return {
    bias: view.getFloat32(8, true),
    scale: view.getFloat32(12, true),
    threshold: view.getFloat32(16, true),
    minCount: view.getUint16(6, true),
    weights: new Int8Array(bytes.buffer, bytes.byteOffset + HEADER, 1 << bits),
  };
}

export function loadModel(path: string): LinearModel {
  return decodeModel(readFileSync(path));
}

/** A scorer bound to one model: text → probability (0..1) that it belongs to the positive class. */
export function scorerFor(model: LinearModel): (text: string) => number {
  const { weights, minCount } = model;
  return (text: string) => {
    const { out, count } = featureBuckets(text);
    let sum = 0;
    for (let i = 0; i < count; i++) sum += weights[out[i] as number] as number;
    const z = model.bias + (model.scale * sum) / Math.sqrt(Math.max(count, minCount, 1));
    return 1 / (1 + Math.exp(-z));
  };
}

/**
 * Scorers of several models that read a text's n-grams in one pass: their weights interleaved, so
 * each n-gram's weights share a cache line, and the sums of the last text kept for the next model
 * (the guardrails score one text with both classifiers in turn). Each gives what scorerFor(model)
 * gives: the sums are of the same integers.
 */
export function scorersFor(models: readonly LinearModel[]): ((text: string) => number)[] {
  const k = models.length;
  const interleaved = new Int8Array(k * (1 << BITS));
  for (let m = 0; m < k; m++) {
    const w = (models[m] as LinearModel).weights;
    for (let b = 0; b < w.length; b++) interleaved[b * k + m] = w[b] as number;
  }
  const sums = new Float64Array(k);
  let lastText: string | null = null;
  let lastCount = 0;
  const sumsOf = (text: string): number => {
    if (text === lastText) return lastCount;
    const { out, count } = featureBuckets(text);
    sums.fill(0);
    if (k === 2) {
      let a = 0;
      let c = 0;
      for (let i = 0; i < count; i++) {
        const at = (out[i] as number) << 1;
        a += interleaved[at] as number;
        c += interleaved[at + 1] as number;
      }
      sums[0] = a;
      sums[1] = c;
    } else {
      for (let i = 0; i < count; i++) {
        const at = (out[i] as number) * k;
        for (let m = 0; m < k; m++) sums[m] = (sums[m] as number) + (interleaved[at + m] as number);
      }
    }
    lastText = text;
    lastCount = count;
    return count;
  };
  return models.map((model, m) => (text: string) => {
    const count = sumsOf(text);
    const z =
      model.bias + (model.scale * (sums[m] as number)) / Math.sqrt(Math.max(count, model.minCount, 1));
    return 1 / (1 + Math.exp(-z));
  });
}
