// The index behind the prefilters (prefilter.ts): which letter trigrams a text holds, built once per
// text and shared by every pattern. Characters other than ASCII letters share one class (0), and a
// run of them counts as one: "word  next", "word\n\nnext" and "word, next" all read "word-next". So a
// literal may say where a word ends: a non-letter in it stands for any run of them (\s+, \W, [,.;:]),
// and a word boundary \b beside a letter is a non-letter or the text's edge (each end of the text
// counts as one non-letter). Pairs of adjacent digits are indexed apart, since every digit is of
// class 0 ("\b14 88\b" then needs "14" and "88", not merely two non-letters).

/** In a literal: any run of non-letters. */
export const NON_LETTER = " ";
/** In a literal: a word boundary, zero-width (see gramsOfLiteral). */
export const BOUNDARY = "\b";

const CLASSES = 27;
const BIGRAMS = CLASSES * CLASSES * CLASSES;
/** Pairs of adjacent digits, numbered after the bigrams. */
const DIGIT_PAIRS = BIGRAMS + CLASSES * CLASSES;
const GRAMS = DIGIT_PAIRS + 100;

export function isLetter(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
}

/** The trigram class of a character: a-z (upper case folded) 1..26, anything else 0. */
function classOf(c: number): number {
  if (c >= 97 && c <= 122) return c - 96;
  if (c >= 65 && c <= 90) return c - 64;
  return 0;
}

const CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) CLASS[c] = classOf(c);

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const encoder = new TextEncoder();

/**
 * The grams a literal requires of the text: the trigrams of its classes, runs of non-letters as one
 * (a literal of two classes: one bigram, numbered after the trigrams), and its pairs of adjacent
 * digits. A boundary beside a letter at the literal's edge is the non-letter (or text edge) on its
 * other side; anywhere else it says nothing the index can test and is dropped. Empty: the literal
 * cannot be tested.
 */
export function gramsOfLiteral(literal: string): number[] {
  const codes: number[] = [];
  const n = literal.length;
  for (let i = 0; i < n; i++) {
    const c = literal.charCodeAt(i);
    if (c !== 8) codes.push(c);
    else if (i === 0 || i === n - 1) {
      const beside = literal.charCodeAt(i === 0 ? 1 : n - 2);
      if (isLetter(beside)) codes.push(0);
    }
  }
  const classes: number[] = [];
  for (const c of codes) {
    const k = classOf(c);
    if (k !== 0 || classes[classes.length - 1] !== 0) classes.push(k);
  }
  const out: number[] = [];
  const [first = 0, second = 0] = classes;
  if (classes.length === 2) out.push(BIGRAMS + first * CLASSES + second);
  // Each trigram of classes, then each pair of adjacent digits, in order.
  let pair = -1; // the two classes before, as one number (-1: fewer than two yet)
  let last = -1;
  for (const k of classes) {
    if (pair >= 0) out.push(pair * CLASSES + k);
    pair = last >= 0 ? last * CLASSES + k : -1;
    last = k;
  }
  let before = -1;
  for (const c of codes) {
    if (before >= 0 && isDigit(before) && isDigit(c)) out.push(DIGIT_PAIRS + (before - 48) * 10 + (c - 48));
    before = c;
  }
  return out;
}

// How often each class occurs in English prose, per thousand characters (0: non-letters); only the
// order matters (the rarest gram of a literal is tested first).
const CLASS_FREQUENCY = [
  180, 67, 12, 23, 35, 104, 18, 16, 50, 57, 1, 6, 33, 20, 55, 61, 16, 1, 49, 52, 74, 23, 8, 19, 1, 16, 1,
];

/** An estimate of how often a gram occurs (relative; digit pairs are rare). */
export function gramFrequency(gram: number): number {
  if (gram >= DIGIT_PAIRS) return 0.01;
  const f = (k: number) => CLASS_FREQUENCY[k] ?? 0;
  if (gram >= BIGRAMS) {
    const g = gram - BIGRAMS;
    return f(Math.floor(g / CLASSES)) * f(g % CLASSES) * 100;
  }
  return (
    f(Math.floor(gram / (CLASSES * CLASSES))) * f(Math.floor(gram / CLASSES) % CLASSES) * f(gram % CLASSES)
  );
}

/** How much a literal says (a letter more than a non-letter: " is " is in most prose). */
export function selectivity(literal: string): number {
  let weight = 0;
  for (const g of gramsOfLiteral(literal)) weight += g >= DIGIT_PAIRS ? 2 : 1;
  for (let i = 0; i < literal.length; i++) if (isLetter(literal.charCodeAt(i))) weight++;
  return weight;
}

/** The trigrams (and bigrams) present in a text, built once per text and shared by every prefilter. */
export class Trigrams {
  private readonly seen = new Uint32Array(GRAMS);
  private stamp = 0;
  private text: string | null = null;
  /** A text with the same grams as `text` (see alias). */
  private same: string | null = null;

  private utf8 = new Uint8Array(4096);

  /** Indexes `text` (a no-op when it is the text indexed last). */
  of(text: string): this {
    if (this.text === text || this.same === text) return this;
    // Its UTF-8 bytes index as its UTF-16 code units would: every byte of a non-ASCII character is
    // a non-letter, and a run of them reads as one. The native encoder makes the one loop below
    // serve strings and byte buffers alike.
    if (this.utf8.length < text.length * 3) this.utf8 = new Uint8Array(text.length * 3);
    const { written } = encoder.encodeInto(text, this.utf8);
    this.ofBytes(this.utf8, written);
    this.text = text;
    return this;
  }

  /** Indexes the bytes bytes[0..n) (ASCII, or UTF-8: a text not yet made a string). */
  ofBytes(bytes: Uint8Array, n: number): this {
    this.text = null;
    this.same = null;
    const stamp = this.next();
    const seen = this.seen;
    // One non-letter before the text and one after (a word at either edge ends at a boundary).
    let b = 0;
    let ab = 0;
    let digit = -1;
    for (let i = 0; i < n; i++) {
      const code = bytes[i] ?? 0;
      const c = code < 128 ? (CLASS[code] ?? 0) : 0;
      if ((c | b) !== 0) {
        seen[BIGRAMS + b * CLASSES + c] = stamp;
        seen[ab * CLASSES + c] = stamp;
        ab = b * CLASSES + c;
        b = c;
      }
      if (code - 48 < 10 && code >= 48) {
        if (digit >= 0) seen[DIGIT_PAIRS + digit * 10 + code - 48] = stamp;
        digit = code - 48;
      } else digit = -1;
    }
    seen[BIGRAMS + b * CLASSES] = stamp;
    seen[ab * CLASSES] = stamp;
    return this;
  }

  private next(): number {
    if (++this.stamp === 0xffffffff) {
      this.seen.fill(0);
      this.stamp = 1;
    }
    return this.stamp;
  }

  /** Whether the text indexed last holds this gram. */
  has(gram: number): boolean {
    return this.seen[gram] === this.stamp;
  }

  /** has(t) is seenTable[t] === currentStamp (for the prefilters' inner loop). */
  get seenTable(): Uint32Array {
    return this.seen;
  }

  get currentStamp(): number {
    return this.stamp;
  }

  /**
   * `same` is `indexed` with only the case of letters changed (its lower case): its grams are the
   * same, so when `indexed` is the text indexed last, the index serves `same` without a new pass.
   */
  alias(indexed: string, same: string): void {
    if (this.text === indexed) this.same = same;
  }
}

/** One index shared by the scanners: a text scanned by several of them is indexed once. */
export const sharedTrigrams = new Trigrams();
