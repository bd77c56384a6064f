import { bestPerType, type Hit, hitScanner } from "../../hits.ts";
import { normalize, originalSpan } from "../../normalize.ts";
import { prefilterFor, sharedTrigrams, type Trigrams } from "../../prefilter.ts";
import { combineScores, type Scanner } from "../../scanner.ts";
import { gramsOfLiteral } from "../../trigrams.ts";
import { abuseSignals } from "./phrases.ts";
import { findProfanity } from "./profanity.ts";

const DEFAULT_THRESHOLD = 0.5;
/** Each abuse signal with its prefilter. */
const abuse = abuseSignals.map((signal) => ({ signal, filter: prefilterFor(signal.re) }));

// obscenity's terms by how much a single occurrence says. Slurs are hate on their own; swearing is
// rude; sexual and anatomical words are often clinical ("sex", "penis", "anal fissure") and count
// only together with something else.
const SLURS = new Set([
  "abo",
  "abeed",
  "africoon",
  "arabush",
  "boonga",
  "chingchong",
  "chink",
  "dyke",
  "fag",
  "kike",
  "negro",
  "nigger",
  "retard",
  "spastic",
  "tranny",
]);
const SEXUAL = new Set([
  "anal",
  "anus",
  "bestiality",
  "blowjob",
  "boob",
  "buttplug",
  "cum",
  "deepthroat",
  "dildo",
  "doggystyle",
  "double penetration",
  "ejaculate",
  "felch",
  "fellatio",
  "finger bang",
  "fisting",
  "gangbang",
  "handjob",
  "hentai",
  "hooker",
  "incest",
  "jerk off",
  "jizz",
  "lubejob",
  "masturbate",
  "orgasm",
  "orgy",
  "penis",
  "porn",
  "scat",
  "semen",
  "sex",
  "tit",
  "vagina",
]);

function profanityKind(word: string): { type: string; weight: number } {
  if (SLURS.has(word)) return { type: "slur", weight: 0.9 };
  if (word === "rape") return { type: "violence", weight: 0.7 };
  if (SEXUAL.has(word)) return { type: "sexual", weight: 0.4 };
  return { type: "profanity", weight: 0.6 };
}

// Words spelt out letter by letter ("f.u.c.k", "s h i t"): obscenity reads them only when joined.
export const SPELT_OUT = /(?<![A-Za-z])[A-Za-z](?:[ .\-_*]{1,2}[A-Za-z](?![A-Za-z])){2,}/g;

const isLetter = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
// SPELT_OUT's separators: space . - _ *
const isSeparator = (c: number): boolean => c === 32 || c === 46 || c === 45 || c === 95 || c === 42;

/**
 * Where SPELT_OUT can first match: a letter not preceded by one, one or two separators, then a letter
 * not followed by one. -1: nowhere (most prose; a loop over the char codes costs less than the
 * pattern's own search from every letter).
 */
export function speltOutFrom(text: string): number {
  const n = text.length;
  for (let i = 0; i + 2 < n; i++) {
    if (!isSeparator(text.charCodeAt(i + 1)) || !isLetter(text.charCodeAt(i))) continue;
    if (i > 0 && isLetter(text.charCodeAt(i - 1))) continue;
    let j = i + 2;
    if (isSeparator(text.charCodeAt(j))) j++;
    if (isLetter(text.charCodeAt(j)) && !isLetter(text.charCodeAt(j + 1))) return i;
  }
  return -1;
}

// The grams of a single letter between non-letters, and of two such letters one non-letter apart.
const LETTERS = [..."abcdefghijklmnopqrstuvwxyz"];
const ALONE = LETTERS.map((x) => gramsOfLiteral(` ${x} `)[0] ?? -1);
const APART = LETTERS.map((x) => LETTERS.map((y) => gramsOfLiteral(`${x} ${y}`)[0] ?? -1));

/**
 * Whether the indexed text can hold SPELT_OUT: two single letters one run of non-letters apart.
 * Most prose has one or two single-letter words ("a", "I") and no such pair: a few table reads.
 */
export function mayHoldSpeltOut(grams: Trigrams): boolean {
  for (let x = 0; x < 26; x++) {
    const apart = APART[x];
    if (apart === undefined || !grams.has(ALONE[x] ?? -1)) continue;
    for (let y = 0; y < 26; y++) if (grams.has(ALONE[y] ?? -1) && grams.has(apart[y] ?? -1)) return true;
  }
  return false;
}

function analyse(text: string, hits: Hit[]): number {
  for (const m of findProfanity(text)) hits.push({ ...profanityKind(m.word), start: m.start, end: m.end });
  const norm = normalize(text);
  // SPELT_OUT reads the text as it is: its own index (the prompt-injection scanner's, when it ran).
  const from = mayHoldSpeltOut(sharedTrigrams.of(text)) ? speltOutFrom(text) : -1;
  if (norm.lowered) sharedTrigrams.alias(text, norm.text);
  SPELT_OUT.lastIndex = from < 0 ? text.length + 1 : from;
  for (let m = SPELT_OUT.exec(text); m !== null; m = SPELT_OUT.exec(text)) {
    const start = m.index;
    const end = start + m[0].length;
    for (const p of findProfanity(m[0].replace(/[ .\-_*]/g, "")))
      hits.push({ ...profanityKind(p.word), start, end });
  }
  const grams = sharedTrigrams.of(norm.text);
  for (const { signal: s, filter } of abuse) {
    if (!filter.mayMatch(grams)) continue; // none of its literals occur
    s.re.lastIndex = 0;
    for (let m = s.re.exec(norm.text); m !== null; m = s.re.exec(norm.text)) {
      const [start, end] = originalSpan(text, norm, m.index, m.index + m[0].length);
      hits.push({ type: s.type, weight: s.weight, start, end });
    }
  }
  return hits.length === 0 ? 0 : combineScores(bestPerType(hits));
}

export const toxicityScanner: Scanner = hitScanner("toxicity", DEFAULT_THRESHOLD, analyse);

/** The 0..1 score alone (for calibration and the bench). */
export function toxicityScore(text: string): number {
  return analyse(text, []);
}
