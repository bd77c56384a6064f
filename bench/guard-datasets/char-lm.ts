// An experiment, not shipped (docs/guardrails-evaluation.md, "Perplexity filter"): measured by
// `bun bench/guardrails.ts perplexity`, it does not separate adversarial suffixes from benign text
// well enough to join the scanner.
//
// A character n-gram language model of benign text, for the perplexity filter against adversarial
// suffixes (Jain et al. 2023, "Baseline Defenses for Adversarial Attacks Against Aligned LLMs";
// Alon & Kamfonas 2023, "Detecting Language Model Attacks with Perplexity"). Optimized suffixes
// (GCG, DSN: "...heroin which sorry bere---------------- ??legt !! lawyer correctedilde]$.") are
// strings no writer produces; the hope is that a model of ordinary text finds some window of them
// less likely than any window of ordinary text. The model learns from benign text only (the negatives of the
// training data), so it needs no example of an attack and holds on attacks no source showed it.
//
// Text is read as classes: ASCII letters case-folded, digits as one class, each ASCII punctuation
// mark its own class, runs of whitespace as one space. A position is scored only when it and its
// whole context are ASCII: scripts the model has not seen (Cyrillic, CJK, accented words) are not
// judged at all, so non-English text cannot look like gibberish to an English model.
//
// Costs are −log2 P(c | the previous ORDER−1 classes) with "stupid backoff" (Brants et al. 2007) to
// shorter contexts: a table of one byte per hashed n-gram (0: not seen). A text's score is the
// highest mean cost over WINDOW consecutive scored positions; texts with fewer scored positions are
// not judged. Scoring allocates nothing: typed arrays reused across calls.

export const LM_BITS = 22;
export const LM_ORDER = 5;
export const LM_WINDOW = 32;
const PRIME = 0x01000193;
const SEED = 0x811c9dc5;
/** Seeds per order so that n-grams of different lengths fall in unrelated buckets. */
const ORDER_SEEDS = [0, 0x9e3779b9, 0x85ebca6b, 0xc2b2ae35, 0x27d4eb2f, 0x165667b1, 0xd3a2646c, 0xfd7046c5];

/** Class of each char code below 128; 0 is "not ASCII" (breaks the context), 1 is space. */
export const CHAR_CLASS: Uint8Array = (() => {
  const t = new Uint8Array(128);
  let next = 2;
  const digit = next++;
  for (let c = 0; c < 128; c++) {
    if (c === 32 || (c >= 9 && c <= 13)) t[c] = 1;
    else if (c >= 48 && c <= 57) t[c] = digit;
    else if ((c > 32 && c < 65) || (c > 90 && c < 127)) t[c] = next++;
    else t[c] = 0;
  }
  // Upper case folded onto lower case.
  for (let c = 65; c <= 90; c++) t[c] = t[c + 32] as number;
  return t;
})();

export interface CharLm {
  bits: number;
  order: number;
  window: number;
  /** Mean cost per char (bits) above which a window is gibberish: chosen on benign text at training. */
  threshold: number;
  /** Added cost (bits) for each step back to a shorter context. */
  backoff: number;
  /** Bits per stored unit: cost = (byte − 1) × quantum. */
  quantum: number;
  costs: Uint8Array;
}

/**
 * Calls `each(depth)` for each position of `text` (whitespace runs count once, non-ASCII breaks the
 * context): `hashes[k]` is then the 32-bit hash of the (k+1)-gram ending there (newest class
 * first), `depth` how many orders are available (the context since the last break, at most
 * `order`). Shared by training and scoring, so the two hash alike. Returns the number of positions
 * with the whole context (the ones scored).
 */
export function forEachPosition(
  text: string,
  order: number,
  hashes: Uint32Array,
  each: (depth: number) => void,
): number {
  const ring = ringBuffer;
  let have = 0; // classes since the last break, capped at order
  let lastSpace = true;
  let scored = 0;
  // A leading space: the first word has its boundary context.
  ring[0] = 1;
  have = 1;
  let head = 0;
  for (let i = 0; i <= text.length; i++) {
    const code = i === text.length ? 32 : text.charCodeAt(i);
    const cls = code < 128 ? (CHAR_CLASS[code] as number) : 0;
    if (cls === 0) {
      have = 0;
      lastSpace = false;
      continue;
    }
    if (cls === 1) {
      if (lastSpace) continue;
      lastSpace = true;
    } else lastSpace = false;
    head = (head + 1) & 7;
    ring[head] = cls;
    if (have < order) have++;
    // Hashes newest class first: order k's hash extends order k−1's by one older class.
    let h = SEED;
    for (let k = 0; k < have; k++) {
      h = Math.imul(h ^ (ring[(head - k) & 7] as number), PRIME);
      hashes[k] = (h ^ Math.imul(ORDER_SEEDS[k] as number, 0x2545f491)) >>> 0;
    }
    each(have);
    if (have === order) scored++;
  }
  return scored;
}
const ringBuffer = new Uint8Array(8);

/** The cost (bits) of the class at a position, from its n-gram hashes: longest seen context first. */
function costAt(model: CharLm, hashes: Uint32Array, depth: number): number {
  const mask = (1 << model.bits) - 1;
  let penalty = 0;
  for (let k = depth - 1; k >= 0; k--) {
    const stored = model.costs[(hashes[k] as number) & mask] as number;
    if (stored !== 0) return penalty + (stored - 1) * model.quantum;
    penalty += model.backoff;
  }
  return penalty + 255 * model.quantum;
}

// Per-call scratch, reused: the costs of the last WINDOW positions.
let windowCosts = new Float64Array(64);
const scoreHashes = new Uint32Array(8);

/** The highest mean cost (bits per char) over `model.window` consecutive scored positions; 0 if fewer. */
export function gibberishScore(model: CharLm, text: string): number {
  const w = model.window;
  if (windowCosts.length < w) windowCosts = new Float64Array(w);
  const ring = windowCosts;
  let n = 0;
  let sum = 0;
  let best = 0;
  forEachPosition(text, model.order, scoreHashes, (depth) => {
    // Scored only with the whole context: the first classes after a break have too little.
    if (depth < model.order) return;
    const c = costAt(model, scoreHashes, depth);
    const slot = n % w;
    if (n >= w) sum -= ring[slot] as number;
    ring[slot] = c;
    sum += c;
    n++;
    if (n >= w && sum > best) best = sum;
  });
  return best / w;
}
