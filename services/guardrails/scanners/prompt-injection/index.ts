import { type Hit as BaseHit, bestPerSignal, hitScanner } from "../../hits.ts";
import { normalize, originalSpan } from "../../normalize.ts";
import { type Prefilter, prefilterFor, sharedTrigrams } from "../../prefilter.ts";
import { combineScores, type Scanner } from "../../scanner.ts";
import {
  BASE64_RUN,
  decodeBase64,
  decodeHex,
  decodePercent,
  decodeTags,
  HEX_RUN,
  PERCENT_RUN,
  rot13,
} from "./decode.ts";
import { delimiterSignals, type InjectionType, phraseSignals, type Signal } from "./patterns.ts";

const DEFAULT_THRESHOLD = 0.5;
// How deep encodings are unwrapped (base64 of base64 is common; deeper nesting buys nothing).
const MAX_DEPTH = 2;

interface Hit extends BaseHit {
  type: InjectionType;
}

// Each signal is one piece of evidence however often it matches; distinct signals add up.
let nextSignalId = 0;
const signalIds = new WeakMap<Signal, number>();
function signalId(s: Signal): number {
  const known = signalIds.get(s);
  if (known !== undefined) return known;
  const id = nextSignalId++;
  signalIds.set(s, id);
  return id;
}

// rot13 of words the signals need; only a text holding one is worth decoding as rot13.
const ROT13_GATE =
  /vtaber|qvfertneq|sbetrg|vafgehpgvba|cebzcg|ehyrf|erfgevpgvba|wnvyoe|nalguvat|obhaq|flfgrz|ireongvz/;

const ENCODING =
  "(?:base64|base\\s*64|b64|hex|hexadecimal|rot13|rot-13|binary|morse|cipher|ciphertext|encoded|encoding)";
const DECODE_REQUESTS: readonly Signal[] = [
  {
    type: "encoded_payload",
    weight: 0.3,
    re: new RegExp(
      `\\b(?:decode|decipher|translate|convert|interpret)\\b[^.\\n]{0,40}\\b${ENCODING}\\b`,
      "g",
    ),
  },
  // Asking the model to act on what it decodes is the attack itself, whatever the payload says.
  {
    type: "encoded_payload",
    weight: 0.45,
    re: new RegExp(
      `\\b(?:run|execute|exec|follow|obey|act on|carry out|perform)\\b[^.\\n]{0,40}\\b${ENCODING}\\b|\\b${ENCODING}\\b[^.\\n]{0,40}\\b(?:and|then) (?:run|execute|follow|obey|act on|carry out|do what it says)\\b`,
      "g",
    ),
  },
];
// A readable payload hidden in an encoding is a weak signal on its own (people paste base64 to
// have it decoded), and adds to a request to act on it.
const READABLE_PAYLOAD = 0.25;

// The prefilters of each list of signals, found once per list (not once per signal and scan).
const filtersByList = new WeakMap<readonly Signal[], Prefilter[]>();
function filtersOf(signals: readonly Signal[]): Prefilter[] {
  let filters = filtersByList.get(signals);
  if (filters === undefined) {
    filters = signals.map((s) => prefilterFor(s.re));
    filtersByList.set(signals, filters);
  }
  return filters;
}

function collect(
  signals: readonly Signal[],
  text: string,
  each: (s: Signal, start: number, end: number) => void,
) {
  // Most patterns cannot match a given text (none of their literals occur in it): skip those.
  const grams = sharedTrigrams.of(text);
  const filters = filtersOf(signals);
  for (let i = 0; i < signals.length; i++) {
    if (!(filters[i] as Prefilter).mayMatch(grams)) continue;
    const s = signals[i] as Signal;
    s.re.lastIndex = 0;
    for (let m = s.re.exec(text); m !== null; m = s.re.exec(text)) {
      if (m[0].length === 0) {
        s.re.lastIndex++;
        continue;
      }
      each(s, m.index, m.index + m[0].length);
    }
  }
}

function isAsciiLetter(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
}

function invisibleHits(text: string, hits: Hit[]): void {
  let first = -1;
  let last = -1;
  let zeroWidth = 0;
  let inWord = 0;
  let bidi = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x200b) continue;
    const zw = c === 0x200b || c === 0x200c || c === 0x2060 || (c === 0xfeff && i > 0) || c === 0x200d;
    const bd = (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
    if (!zw && !bd) continue;
    const between = isAsciiLetter(text.charCodeAt(i - 1)) && isAsciiLetter(text.charCodeAt(i + 1));
    // A joiner between emoji or inside an Indic or Persian word is legitimate text.
    if (c === 0x200d && !between) continue;
    if (zw) zeroWidth++;
    if (zw && between) inWord++;
    if (bd) bidi++;
    if (first < 0) first = i;
    last = i + 1;
  }
  const tags = decodeTags(text);
  if (tags) {
    hits.push({
      type: "invisible_unicode",
      weight: tags.hidden.length >= 4 ? 0.95 : 0.6,
      start: tags.start,
      end: tags.end,
    });
  }
  if (first < 0) return;
  const weight = Math.max(
    bidi > 0 ? 0.5 : 0,
    zeroWidth >= 3 ? 0.6 : inWord > 0 ? 0.4 : zeroWidth > 0 ? 0.15 : 0,
  );
  if (weight > 0) hits.push({ type: "invisible_unicode", weight, start: first, end: last });
}

/** Combined 0..1 score of the signals found; `hits` receives them with offsets into `text`. */
function analyse(text: string, depth: number, hits: Hit[]): number {
  invisibleHits(text, hits);
  collect(delimiterSignals, text, (s, start, end) =>
    hits.push({ type: s.type, weight: s.weight, start, end, signal: signalId(s) }),
  );

  const norm = normalize(text);
  // Trigram classes fold case: the index of the text (collect above) is that of its lower case.
  if (norm.lowered) sharedTrigrams.alias(text, norm.text);
  const phrases = (signals: readonly Signal[], scanned: string, as?: InjectionType) =>
    collect(signals, scanned, (s, start, end) => {
      const [from, to] = originalSpan(text, norm, start, end);
      hits.push({
        type: as ?? s.type,
        weight: as ? Math.max(0.85, s.weight) : s.weight,
        start: from,
        end: to,
        signal: signalId(s) + (as ? 1000 : 0),
      });
    });
  phrases(phraseSignals, norm.text);
  phrases(DECODE_REQUESTS, norm.text);
  // rot13 keeps length and positions, so the same offset map applies.
  // The gate's words are literals: the text's trigrams (indexed by the phrases above) rule most out.
  if (prefilterFor(ROT13_GATE).mayMatch(sharedTrigrams.of(norm.text)) && ROT13_GATE.test(norm.text)) {
    // A rot13 text is judged on its own: all its signals, combined, must reach the threshold.
    const inner: Hit[] = [];
    collect(phraseSignals, rot13(norm.text), (s, start, end) => {
      const [from, to] = originalSpan(text, norm, start, end);
      inner.push({ type: s.type, weight: s.weight, start: from, end: to, signal: signalId(s) });
    });
    const score = scoreOf(inner);
    if (score >= DEFAULT_THRESHOLD) {
      const start = Math.min(...inner.map((h) => h.start));
      const end = Math.max(...inner.map((h) => h.end));
      hits.push({ type: "encoded_payload", weight: Math.max(0.85, score), start, end });
    }
  }

  if (depth < MAX_DEPTH) {
    const tags = decodeTags(text);
    if (tags && tags.hidden.length >= 4) rescan(tags.hidden, tags.start, tags.end, depth, hits);
    decodeRuns(text, BASE64_RUN, decodeBase64, depth, hits);
    decodeRuns(text, HEX_RUN, decodeHex, depth, hits);
    if (text.indexOf("%") >= 0) decodeRuns(text, PERCENT_RUN, decodePercent, depth, hits);
  }
  return scoreOf(hits);
}

function decodeRuns(
  text: string,
  re: RegExp,
  decode: (run: string) => string | null,
  depth: number,
  hits: Hit[],
): void {
  const runs: [number, number, string][] = [];
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const decoded = decode(m[0]);
    if (decoded !== null) runs.push([m.index, m.index + m[0].length, decoded]);
  }
  for (const [start, end, decoded] of runs) rescan(decoded, start, end, depth, hits);
}

function rescan(decoded: string, start: number, end: number, depth: number, hits: Hit[]): void {
  const inner: Hit[] = [];
  const score = analyse(decoded, depth + 1, inner);
  const weight = score >= DEFAULT_THRESHOLD ? Math.max(0.85, score) : READABLE_PAYLOAD;
  hits.push({ type: "encoded_payload", weight, start, end, signal: score >= DEFAULT_THRESHOLD ? -1 : -2 });
}

function scoreOf(hits: readonly Hit[]): number {
  return hits.length === 0 ? 0 : combineScores(bestPerSignal(hits));
}

export const promptInjectionScanner: Scanner = hitScanner<Hit>(
  "prompt_injection",
  DEFAULT_THRESHOLD,
  (text, hits) => analyse(text, 0, hits),
);

/** The 0..1 score alone (for calibration and the bench). */
export function promptInjectionScore(text: string): number {
  return analyse(text, 0, []);
}
