// Folds the cheap obfuscations of a prompt into plain lower-case text so one set of phrase patterns
// catches them all: invisible characters are dropped (U+200B between letters must not split a word),
// compatibility forms and accents are folded (fullwidth, mathematical alphanumerics, "ïgnörë"), common
// Cyrillic/Greek look-alikes become Latin, digits and symbols inside words are read as leetspeak
// ("1gn0r3"), and Unicode spaces become plain spaces. Every output character keeps the index of the input
// character it came from, so findings point into the original text.

/** Zero-width and formatting characters that render as nothing. */
export function isInvisible(cp: number): boolean {
  return (
    (cp >= 0x200b && cp <= 0x200f) || // zero-width space/non-joiner/joiner, LRM, RLM
    (cp >= 0x202a && cp <= 0x202e) || // bidi embeddings and overrides
    (cp >= 0x2060 && cp <= 0x2064) || // word joiner, invisible operators
    (cp >= 0x2066 && cp <= 0x2069) || // bidi isolates
    cp === 0xfeff ||
    cp === 0x00ad ||
    cp === 0x180e ||
    (cp >= 0xe0000 && cp <= 0xe007f) // tag characters ("ASCII smuggling")
  );
}

// Look-alikes that NFKD leaves alone (they are letters of other scripts), mapped to the Latin letter
// they imitate.
const HOMOGLYPHS: Record<number, string> = {};
for (const [from, to] of [
  ["аеорсухіјѕԁһӏԛԝ", "aeopcyxijsdhlqw"], // Cyrillic lower case
  ["АВЕКМНОРСТХІЈЅ", "abekmhopctxijs"], // Cyrillic upper case
  ["αβεικνορτυχ", "abeiknoptux"], // Greek lower case
  ["ΑΒΕΗΙΚΜΝΟΡΤΥΧΖ", "abehikmnoptyxz"], // Greek upper case
  ["ɡɪʏ", "giy"],
] as const) {
  for (let i = 0; i < from.length; i++) HOMOGLYPHS[from.charCodeAt(i)] = to.charAt(i);
}

// Leetspeak digits and symbols, read as letters only next to a letter so plain numbers stay numbers.
const LEET: Record<number, number> = {
  48: 111, // 0 o
  49: 105, // 1 i
  51: 101, // 3 e
  52: 97, // 4 a
  53: 115, // 5 s
  55: 116, // 7 t
  64: 97, // @ a
  36: 115, // $ s
};

function isAsciiLetter(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
}

export interface Normalized {
  text: string;
  /** map[i] = index in the original text of normalized character i; null when it is i itself. */
  map: Int32Array | null;
  /** The text is the input's toLowerCase() (nothing else was folded). */
  lowered?: boolean;
}

const NON_ASCII = /[^\t-~]/; // anything outside tab..tilde (ASCII; other controls take the slow path too)
const LEET_CHARS = "013457@$";
const isLower = (c: number): boolean => c >= 97 && c <= 122;

/**
 * /[a-z][013457@$]|[013457@$][a-z]/.test(lower), found from the leet characters' places (indexOf
 * is a native scan; most prompts hold few digits): the pattern tried at every position cost more.
 */
export function leetNearLetter(lower: string): boolean {
  for (let k = 0; k < LEET_CHARS.length; k++) {
    const ch = LEET_CHARS.charAt(k);
    for (let at = lower.indexOf(ch); at >= 0; at = lower.indexOf(ch, at + 1)) {
      if (isLower(lower.charCodeAt(at - 1)) || isLower(lower.charCodeAt(at + 1))) return true;
    }
  }
  return false;
}
// A word that mixes letters with leet digits or symbols ("1nstruct10ns", "4ll"): inside it every
// leet character is read as its letter (unleet below).
const LEET_TABLE = new Int32Array(128);
for (const [from, to] of Object.entries(LEET)) LEET_TABLE[Number(from)] = to;
/** In the class of LEET_WORD: a-z, 0-9, @, $. */
const isWordCode = (c: number): boolean =>
  (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 64 || c === 36;

/**
 * `lower.replace(LEET_WORD, w => w.replace(LEET_CHAR, leet))` in one pass over char codes (a replace
 * with a callback per word was a third of a 1 KB prompt's scan): each maximal run of a-z, digits, @
 * and $ that holds a letter has its leet characters read as letters.
 */
function unleet(lower: string): string {
  const n = lower.length;
  ensure(n);
  let changed = false;
  for (let i = 0; i < n; ) {
    const c = lower.charCodeAt(i);
    if (!isWordCode(c)) {
      codes[i++] = c;
      continue;
    }
    let end = i;
    let letter = false;
    while (end < n) {
      const d = lower.charCodeAt(end);
      if (!isWordCode(d)) break;
      if (d >= 97) letter = true;
      end++;
    }
    for (let k = i; k < end; k++) {
      const d = lower.charCodeAt(k);
      const to = letter ? (LEET_TABLE[d] ?? 0) : 0;
      if (to !== 0) changed = true;
      codes[k] = to !== 0 ? to : d;
    }
    i = end;
  }
  return changed ? decode(n) : lower;
}

let codes = new Uint16Array(4096);
let origin = new Int32Array(4096);

function ensure(capacity: number): void {
  if (codes.length >= capacity) return;
  const size = Math.max(capacity, codes.length * 2);
  codes = new Uint16Array(size);
  origin = new Int32Array(size);
}

function decode(n: number): string {
  return stringOfCodes(codes, n);
}

/**
 * The string of the UTF-16 code units codes[0..n), lone surrogates kept. String.fromCharCode applied
 * to the typed array itself, 8192 at a time: no copy into an array (a spread was 4x slower on 1 KB).
 */
export function stringOfCodes(units: Uint16Array, n: number): string {
  let s = "";
  for (let i = 0; i < n; i += 8192) {
    const part: unknown = Reflect.apply(
      String.fromCharCode,
      undefined,
      units.subarray(i, Math.min(n, i + 8192)),
    );
    if (typeof part === "string") s += part;
  }
  return s;
}

// The scanners of one request normalize the same text in turn (prompt injection, then toxicity): the
// last result is kept and given again for the same input. Its offset map is therefore a copy, never a
// view of the shared buffers, which the next text overwrites.
let lastInput: string | null = null;
let lastResult: Normalized | null = null;

/**
 * Whitespace is kept as it is (patterns match runs of it with \s+), so ASCII text, the common case,
 * keeps its offsets and is folded with two native string operations.
 */
export function normalize(input: string): Normalized {
  if (input === lastInput && lastResult !== null) return lastResult;
  const result = fold(input);
  lastInput = input;
  lastResult = result;
  return result;
}

function fold(input: string): Normalized {
  if (!NON_ASCII.test(input)) {
    const lower = input.toLowerCase();
    const text = leetNearLetter(lower) ? unleet(lower) : lower;
    return { text, map: null, lowered: text === lower };
  }
  // Folding never more than triples a character (NFKD of ligatures, e.g. U+FB03 "ffi").
  ensure(input.length * 3 + 8);
  let n = 0;
  const len = input.length;
  for (let i = 0; i < len; ) {
    const cp = input.codePointAt(i) ?? 0;
    const at = i;
    i += cp > 0xffff ? 2 : 1;
    if (cp < 0x80) {
      let c = cp;
      const leet = LEET[c];
      if (c >= 65 && c <= 90) c += 32;
      else if (leet !== undefined) {
        const prev = n > 0 ? (codes[n - 1] ?? 0) : 0;
        if (isAsciiLetter(prev) || isAsciiLetter(input.charCodeAt(i))) c = leet;
      }
      codes[n] = c;
      origin[n++] = at;
      continue;
    }
    if (isInvisible(cp)) continue;
    if (cp === 0x00a0 || cp === 0x3000 || (cp >= 0x2000 && cp <= 0x200a) || cp === 0x2028 || cp === 0x2029) {
      codes[n] = 32;
      origin[n++] = at;
      continue;
    }
    const glyph = HOMOGLYPHS[cp];
    const folded = glyph ?? String.fromCodePoint(cp).normalize("NFKD").toLowerCase();
    for (let k = 0; k < folded.length; k++) {
      const c = folded.charCodeAt(k);
      if (c >= 0x300 && c <= 0x36f) continue; // combining accents
      codes[n] = c;
      origin[n++] = at;
    }
  }
  return { text: decode(n), map: origin.slice(0, n) };
}

/** Original [start, end) of normalized [start, end). */
export function originalSpan(input: string, norm: Normalized, start: number, end: number): [number, number] {
  if (norm.map === null) return [start, end];
  const from = norm.map[start] ?? 0;
  const lastAt = norm.map[Math.max(start, end - 1)] ?? from;
  const cp = input.codePointAt(lastAt) ?? 0;
  return [from, lastAt + (cp > 0xffff ? 2 : 1)];
}
