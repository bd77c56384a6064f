// The features of the guard classifiers: hashed word unigrams and bigrams and character 3-, 4- and
// 5-grams of the normalized text (normalize.ts: lower case, look-alikes and leetspeak folded, so
// "1gn0re" and "ignore" share features). The same code computes them for training
// (scripts/train-guard-classifier.ts) and at scan time, so the two cannot drift apart.
//
// Nothing is allocated per n-gram: each is an FNV-1a hash over char codes, folded into 2^BITS
// buckets. A text's feature vector is its n-gram counts divided by the square root of the number of
// n-grams (about unit L2 norm), so a long jailbreak and a one-line question score on one scale.
import { normalize } from "../normalize.ts";

export const BITS = 18;
export const DIM = 1 << BITS;
const MASK = DIM - 1;
const PRIME = 0x01000193;
const BASIS = 0x811c9dc5;
// Distinct seeds keep the kinds of n-gram apart in the shared buckets.
const WORD_SEED = 0x9e3779b9;
const BIGRAM_SEED = 0x85ebca6b;
const CHAR_MIN = 3;
const CHAR_MAX = 5;

function isWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 39 || c > 0x7f;
}
function isSpaceChar(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 11;
}

let buffer = new Uint16Array(4096);
let buckets = new Int32Array(16384);
// Both classifiers score the same text in turn (prompt injection, then toxicity): the last text's
// buckets are kept, so its n-grams are hashed once per request, not once per model.
let lastText: string | null = null;
let lastCount = 0;

/**
 * The buckets of every n-gram occurrence of `text` (with repeats) in `out[0..count)`; `out` is a
 * shared buffer, valid until the next call with another text. The text is normalized first; runs of
 * whitespace count as one space.
 */
export function featureBuckets(text: string): { out: Int32Array; count: number } {
  if (text === lastText) return { out: buckets, count: lastCount };
  const norm = normalize(text).text;
  if (buffer.length < norm.length + 2) buffer = new Uint16Array(norm.length * 2 + 2);
  // Whitespace collapsed, one space at each end so words at the edges have their boundary grams.
  let n = 0;
  buffer[n++] = 32;
  for (let i = 0; i < norm.length; i++) {
    const c = norm.charCodeAt(i);
    if (isSpaceChar(c)) {
      if (buffer[n - 1] !== 32) buffer[n++] = 32;
    } else buffer[n++] = c;
  }
  if (buffer[n - 1] !== 32) buffer[n++] = 32;
  // At most 3 character grams a position and 2 word grams a word.
  if (buckets.length < n * 5 + 8) buckets = new Int32Array(n * 5 + 8);
  const out = buckets;
  const buf = buffer;

  let count = 0;
  // Every position with a whole 5-gram after it: its 3-, 4- and 5-gram, unrolled (the hot loop of
  // a scan); the last positions below.
  let i = 0;
  for (; i + CHAR_MAX <= n; i++) {
    let h = Math.imul(BASIS ^ (buf[i] as number), PRIME);
    h = Math.imul(h ^ (buf[i + 1] as number), PRIME);
    h = Math.imul(h ^ (buf[i + 2] as number), PRIME);
    out[count++] = (h ^ (h >>> 15)) & MASK;
    h = Math.imul(h ^ (buf[i + 3] as number), PRIME);
    out[count++] = (h ^ (h >>> 15)) & MASK;
    h = Math.imul(h ^ (buf[i + 4] as number), PRIME);
    out[count++] = (h ^ (h >>> 15)) & MASK;
  }
  for (; i + CHAR_MIN <= n; i++) {
    let h = BASIS;
    const last = Math.min(n, i + CHAR_MAX);
    for (let k = i; k < last; k++) {
      h = Math.imul(h ^ (buf[k] as number), PRIME);
      if (k - i + 1 >= CHAR_MIN) out[count++] = (h ^ (h >>> 15)) & MASK;
    }
  }
  let previous = 0;
  let word = WORD_SEED;
  let inWord = false;
  for (let i = 0; i < n; i++) {
    const c = buf[i] as number;
    if (isWordChar(c)) {
      word = Math.imul(word ^ c, PRIME);
      inWord = true;
      continue;
    }
    if (!inWord) continue;
    out[count++] = (word ^ (word >>> 13)) & MASK;
    if (previous !== 0) {
      const b = Math.imul(Math.imul(BIGRAM_SEED ^ previous, PRIME) ^ word, PRIME);
      out[count++] = (b ^ (b >>> 13)) & MASK;
    }
    previous = word;
    word = WORD_SEED;
    inWord = false;
  }
  lastText = text;
  lastCount = count;
  return { out, count };
}

/**
 * Calls `each(bucket)` once per n-gram occurrence of `text`; returns how many there were (for
 * training; scoring reads featureBuckets directly).
 */
export function forEachFeature(text: string, each: (bucket: number) => void): number {
  const { out, count } = featureBuckets(text);
  for (let i = 0; i < count; i++) each(out[i] as number);
  return count;
}

/**
 * The sparse feature vector of `text`: buckets (with repeats) and the common value 1/√count. A text
 * with fewer n-grams than `minCount` is scaled as if it had that many: a few words are little
 * evidence, so their score stays nearer the prior ("You complete me." is no attack).
 */
export function featuresOf(text: string, minCount: number): { buckets: Int32Array; value: number } {
  const list: number[] = [];
  const count = forEachFeature(text, (b) => list.push(b));
  return { buckets: Int32Array.from(list), value: 1 / Math.sqrt(Math.max(count, minCount, 1)) };
}
