import { englishDataset, englishRecommendedTransformers, RegExpMatcher } from "obscenity";
import { PrefilterSet, Trigrams } from "../../prefilter.ts";

// Profanity, slurs and sexual terms come from obscenity's English dataset, which already resolves
// leetspeak, confusable characters and stretched letters ("fuuuck") and whitelists the Scunthorpe
// cases ("assassin", "cocktail").
//
// obscenity runs ~120 regular expressions one after another over a character-by-character
// transformed copy of the text (~150 µs for 1 KB). Almost all text has no match, so a gate answers
// that case first: the same transformation done with lookup tables, then ONE regular expression
// that is the union of obscenity's own patterns (run as the patterns whose literals the transformed
// text holds, see prefilter.ts: most texts hold none). Only when the union matches does obscenity's
// matcher run (for the exact terms, offsets and whitelist). The gate is exact, not a heuristic:
// a text obscenity would flag always passes it (tests/guardrails/toxicity.test.ts checks this).

const dataset = englishDataset.build();
const matcher = new RegExpMatcher({ ...dataset, ...englishRecommendedTransformers });

export interface ProfanityMatch {
  word: string;
  start: number;
  end: number;
}

type SimpleTransformer = { type: 0; transform: (c: number) => number | undefined };
type StatefulTransformer = {
  type: 1;
  factory: () => { transform: (c: number) => number | undefined; reset(): void };
};
type AnyTransformer = SimpleTransformer | StatefulTransformer;

function buildGate(): ((text: string) => boolean) | null {
  const terms = (matcher as unknown as { blacklistedTerms?: { regExp?: RegExp }[] }).blacklistedTerms;
  const transformers =
    englishRecommendedTransformers.blacklistMatcherTransformers as unknown as AnyTransformer[];
  if (!Array.isArray(terms) || terms.some((t) => !(t.regExp instanceof RegExp))) return null;
  // The table below folds the simple transformers; it is only valid when they all come first.
  const firstStateful = transformers.findIndex((t) => t.type === 1);
  const simple = transformers.slice(0, firstStateful < 0 ? transformers.length : firstStateful);
  const rest = firstStateful < 0 ? [] : transformers.slice(firstStateful);
  if (simple.some((t) => t.type !== 0) || rest.some((t) => t.type !== 1)) return null;
  const stateful = (rest as StatefulTransformer[]).map((t) => t.factory());
  const collapse = collapseTable(stateful);

  const NONE = -1;
  const ascii = new Int32Array(128);
  const others = new Map<number, number>();
  const fold = (cp: number): number => {
    let c: number | undefined = cp;
    for (const t of simple as SimpleTransformer[]) {
      c = t.transform(c);
      if (c === undefined) return NONE;
    }
    return c;
  };
  for (let c = 0; c < 128; c++) ascii[c] = fold(c);

  // The union matches when one of its patterns does; a pattern none of whose literals occur cannot.
  const patterns = terms.map((t) => new RegExp((t.regExp as RegExp).source, "s"));
  const prefilters = new PrefilterSet(patterns);
  const candidates = new Int32Array(patterns.length);
  const grams = new Trigrams();
  let buf = new Uint16Array(2048);
  // The same text as bytes while it is ASCII: a string is made from bytes ~10x faster.
  let bytes = new Uint8Array(2048);

  return (text: string) => {
    const len = text.length;
    if (buf.length < len * 2) {
      buf = new Uint16Array(len * 2);
      bytes = new Uint8Array(len * 2);
    }
    for (const s of stateful) s.reset();
    let lastChar = -1;
    let remaining = -1;
    let n = 0;
    let wide = 0;
    for (let i = 0; i < len; ) {
      // text.codePointAt(i), read as char codes (most characters are ASCII).
      let cp = text.charCodeAt(i++);
      let c: number;
      if (cp < 128) c = ascii[cp] as number;
      else {
        if (cp >= 0xd800 && cp <= 0xdbff && i < len) {
          const low = text.charCodeAt(i);
          if (low >= 0xdc00 && low <= 0xdfff) {
            cp = ((cp - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
            i++;
          }
        }
        const known = others.get(cp);
        c = known ?? fold(cp);
        if (known === undefined) others.set(cp, c);
      }
      if (c === NONE) continue;
      let out: number | undefined = c;
      if (collapse) {
        // obscenity's collapseDuplicates, inlined (a method call per character was most of the gate).
        if (c === lastChar) {
          if (remaining-- <= 0) continue;
        } else {
          const threshold =
            c < 128 ? (collapse.ascii[c] as number) : (collapse.custom.get(c) ?? collapse.otherwise);
          remaining = threshold - 1;
          lastChar = c;
          if (threshold <= 0) continue;
        }
      } else {
        for (const s of stateful) {
          out = s.transform(out);
          if (out === undefined) break;
        }
        if (out === undefined) continue;
      }
      wide |= out;
      if (out > 0xffff) {
        buf[n++] = 0xd800 + ((out - 0x10000) >> 10);
        buf[n++] = 0xdc00 + ((out - 0x10000) & 0x3ff);
      } else {
        bytes[n] = out;
        buf[n++] = out;
      }
    }
    // The string is made only when a pattern may match (most texts: none does), or to be indexed
    // when it is not ASCII.
    let transformed: string | null = null;
    if (wide < 128) grams.ofBytes(bytes, n);
    else {
      transformed = decode(buf, n);
      grams.of(transformed);
    }
    const count = prefilters.candidates(grams, candidates);
    if (count === 0) return false;
    transformed ??= ascii7.decode(bytes.subarray(0, n));
    for (let k = 0; k < count; k++)
      if ((patterns[candidates[k] as number] as RegExp).test(transformed)) return true;
    return false;
  };
}

// Bytes below 0x80 decode as themselves (the "latin1" label is windows-1252 above 0x7f: not used there).
const ascii7 = new TextDecoder("latin1");

interface CollapseTable {
  ascii: Int32Array;
  custom: Map<number, number>;
  otherwise: number;
}

/**
 * The thresholds of obscenity's one stateful transformer, collapseDuplicates, when that is what
 * `stateful` is (read from its instance's fields); null otherwise (they are then called as they are).
 */
function collapseTable(stateful: object[]): CollapseTable | null {
  if (stateful.length !== 1) return null;
  const t = stateful[0] as {
    constructor: { name: string };
    defaultThreshold?: unknown;
    customThresholds?: unknown;
  };
  if (
    t.constructor.name !== "CollapseDuplicatesTransformer" ||
    typeof t.defaultThreshold !== "number" ||
    !(t.customThresholds instanceof Map)
  )
    return null;
  const custom = t.customThresholds as Map<number, number>;
  const ascii = new Int32Array(128);
  for (let c = 0; c < 128; c++) ascii[c] = custom.get(c) ?? t.defaultThreshold;
  return { ascii, custom, otherwise: t.defaultThreshold };
}

function decode(codes: Uint16Array, n: number): string {
  let s = "";
  for (let i = 0; i < n; i += 8192) {
    s += String.fromCharCode.apply(null, codes.subarray(i, Math.min(n, i + 8192)) as unknown as number[]);
  }
  return s;
}

const gate = buildGate();

/** True when the fast gate is in use (false: obscenity's internals changed; every text takes the slow path). */
export const profanityGateActive = gate !== null;

export function findProfanity(text: string): ProfanityMatch[] {
  if (gate && !gate(text)) return [];
  const found: ProfanityMatch[] = [];
  for (const m of matcher.getAllMatches(text, true)) {
    // Leetspeak reads "455" as "ass": a match with no letter at all is a number, not a word.
    if (!hasLetter(text, m.startIndex, m.endIndex + 1)) continue;
    // "fa6b8bb0" (a hash) or "bb5b54ab-a55c" (a UUID) read as leetspeak hold slurs: identifiers, not words.
    if (insideHexIdentifier(text, m.startIndex, m.endIndex + 1)) continue;
    const word = englishDataset.getPayloadWithPhraseMetadata(m).phraseMetadata?.originalWord ?? "";
    // obscenity's end index is inclusive.
    found.push({ word, start: m.startIndex, end: m.endIndex + 1 });
  }
  return found;
}

const hexOrDash = /[0-9a-fA-F-]/;
/** The match lies in a run of hex digits (and dashes) of 8 or more with at least two digits. */
function insideHexIdentifier(text: string, start: number, end: number): boolean {
  let from = start;
  let to = end;
  while (from > 0 && hexOrDash.test(text[from - 1] as string)) from--;
  while (to < text.length && hexOrDash.test(text[to] as string)) to++;
  for (let i = start; i < end; i++) if (!hexOrDash.test(text[i] as string)) return false;
  // The run must end at a word boundary on both sides, or it is part of a longer word.
  if (/\w/.test(text[from - 1] ?? "") || /\w/.test(text[to] ?? "")) return false;
  const run = text.slice(from, to);
  return run.length >= 8 && (run.match(/\d/g)?.length ?? 0) >= 2;
}

const letter = /\p{L}/u;
function hasLetter(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (letter.test(text[i] as string)) return true;
  return false;
}

/** obscenity alone, without the gate (to check the gate's exactness). */
export function obscenityHasMatch(text: string): boolean {
  return matcher.hasMatch(text);
}

export function profanityGate(text: string): boolean {
  return gate ? gate(text) : true;
}
