import {
  englishDataset,
  englishRecommendedTransformers,
  RegExpMatcher,
  type SimpleTransformerContainer,
  type StatefulTransformer,
  type StatefulTransformerContainer,
  type TransformerContainer,
} from "obscenity";
import { stringOfCodes } from "../../normalize.ts";
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

/** The regular expressions of obscenity's terms (a private field, read as it is); null if they are not there. */
function termRegExps(m: object): RegExp[] | null {
  if (!("blacklistedTerms" in m)) return null;
  const terms: unknown = m.blacklistedTerms;
  if (!Array.isArray(terms)) return null;
  const items: readonly unknown[] = terms;
  const out: RegExp[] = [];
  for (const t of items) {
    if (typeof t !== "object" || t === null || !("regExp" in t) || !(t.regExp instanceof RegExp)) return null;
    out.push(t.regExp);
  }
  return out;
}

const isStateful = (t: TransformerContainer): t is StatefulTransformerContainer => "factory" in t;
const isSimple = (t: TransformerContainer): t is SimpleTransformerContainer => !isStateful(t);

/** obscenity's transformers, the simple ones first (the table below folds them); null if not in that order. */
function splitTransformers(
  all: readonly TransformerContainer[],
): { simple: SimpleTransformerContainer[]; stateful: StatefulTransformer[] } | null {
  const firstStateful = all.findIndex(isStateful);
  const split = firstStateful < 0 ? all.length : firstStateful;
  const simple = all.slice(0, split).filter(isSimple);
  const rest = all.slice(split).filter(isStateful);
  if (simple.length + rest.length !== all.length) return null;
  return { simple, stateful: rest.map((t) => t.factory()) };
}

const NONE = -1;

/** The simple transformers folded into one function of a code point (NONE: the character is dropped). */
function foldOf(simple: readonly SimpleTransformerContainer[]): (cp: number) => number {
  return (cp) => {
    let c: number | undefined = cp;
    for (const t of simple) {
      c = t.transform(c);
      if (c === undefined) return NONE;
    }
    return c;
  };
}

function buildGate(): ((text: string) => boolean) | null {
  const regExps = termRegExps(matcher);
  const transformers = splitTransformers(englishRecommendedTransformers.blacklistMatcherTransformers ?? []);
  if (!regExps || !transformers) return null;
  const { stateful } = transformers;
  const collapse = collapseTable(stateful);
  const fold = foldOf(transformers.simple);
  const ascii = new Int32Array(128);
  const others = new Map<number, number>();
  for (let c = 0; c < 128; c++) ascii[c] = fold(c);

  // The union matches when one of its patterns does; a pattern none of whose literals occur cannot.
  const patterns = regExps.map((re) => new RegExp(re.source, "s"));
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
      if (cp < 128) c = ascii[cp] ?? NONE;
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
            c < 128
              ? (collapse.ascii[c] ?? collapse.otherwise)
              : (collapse.custom.get(c) ?? collapse.otherwise);
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
      transformed = stringOfCodes(buf, n);
      grams.of(transformed);
    }
    const count = prefilters.candidates(grams, candidates);
    if (count === 0) return false;
    transformed ??= ascii7.decode(bytes.subarray(0, n));
    for (let k = 0; k < count; k++) if (patterns[candidates[k] ?? -1]?.test(transformed)) return true;
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

/** A map of numbers to numbers, copied; null when anything in it is not one. */
function numberMap(value: unknown): Map<number, number> | null {
  if (!(value instanceof Map)) return null;
  const entries: Map<unknown, unknown> = value;
  const out = new Map<number, number>();
  for (const [k, v] of entries) {
    if (typeof k !== "number" || typeof v !== "number") return null;
    out.set(k, v);
  }
  return out;
}

/**
 * The thresholds of obscenity's one stateful transformer, collapseDuplicates, when that is what
 * `stateful` is (read from its instance's fields); null otherwise (they are then called as they are).
 */
function collapseTable(stateful: readonly StatefulTransformer[]): CollapseTable | null {
  const t = stateful[0];
  if (stateful.length !== 1 || t === undefined || t.constructor.name !== "CollapseDuplicatesTransformer")
    return null;
  if (!("defaultThreshold" in t) || typeof t.defaultThreshold !== "number" || !("customThresholds" in t))
    return null;
  const custom = numberMap(t.customThresholds);
  if (!custom) return null;
  const ascii = new Int32Array(128);
  for (let c = 0; c < 128; c++) ascii[c] = custom.get(c) ?? t.defaultThreshold;
  return { ascii, custom, otherwise: t.defaultThreshold };
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
  while (from > 0 && hexOrDash.test(text.charAt(from - 1))) from--;
  while (to < text.length && hexOrDash.test(text.charAt(to))) to++;
  for (let i = start; i < end; i++) if (!hexOrDash.test(text.charAt(i))) return false;
  // The run must end at a word boundary on both sides, or it is part of a longer word.
  if (/\w/.test(text[from - 1] ?? "") || /\w/.test(text[to] ?? "")) return false;
  const run = text.slice(from, to);
  return run.length >= 8 && (run.match(/\d/g)?.length ?? 0) >= 2;
}

const letter = /\p{L}/u;
function hasLetter(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (letter.test(text.charAt(i))) return true;
  return false;
}

/** obscenity alone, without the gate (to check the gate's exactness). */
export function obscenityHasMatch(text: string): boolean {
  return matcher.hasMatch(text);
}

export function profanityGate(text: string): boolean {
  return gate ? gate(text) : true;
}
