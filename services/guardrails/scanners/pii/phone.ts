import {
  type CountryCode,
  findNumbers,
  getCountries,
  parsePhoneNumberFromString,
} from "libphonenumber-js/max";
import type { Finding } from "../../scanner.ts";
import { dateOrVersion, labelledRun, nanpShaped, streetAfter, trunkShaped } from "./phone-shape.ts";
import { type Detector, piiFinding } from "./types.ts";

// Phone numbers are found and validated by libphonenumber-js (Google's libphonenumber metadata):
// a number counts only when it is a valid number of its region, which is what keeps dates, prices
// and ids out. International numbers (+CC ...) are found for every region; numbers written without
// a country code are read as US/NANP numbers (the default region).
// The max metadata: with min, `isValid()` checks lengths only. Min scans ~17 % faster, but of 2,000
// random "+CC dddddddd" strings it calls 417 phone numbers where max calls 226 (the corpus has no
// such negatives, so it cannot tell them apart).
const DEFAULT_REGION = "US";

// The library costs ~7 µs a number it accepts and 8-15 µs a candidate it rejects (it builds a RegExp
// per pattern it tries, and a national number is tried against every NANP region), so it only sees
// the stretches that could hold a number: 7 or more digits within one run of digits, spaces and
// phone punctuation. A little context either side lets it apply its own boundary rules.
const RUN = /[+(\uFF0B]?\d[\d \u00A0().\-/\u2010-\u2015\uFF0D]{5,}\d/g;
const CONTEXT = 8;
const ISO_DATE = /^(?:19|20)\d\d-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])(?!\d)/;

function digitsIn(text: string, start: number, end: number): number {
  let n = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) n++;
  }
  return n;
}

/**
 * The text with the spans the detectors before this one claimed blanked out (same length, so offsets
 * hold). This detector runs last and every other type is more specific than a phone, so a number read
 * inside a card, an IBAN, an SSN or an address would lose to it in `resolveOverlaps` anyway: not asking
 * the library saves its parse (several for a card, whose groups it tries one by one), and a text of
 * 50,000 addresses is no longer one run of digits and dots for the library to read whole.
 */
function unclaimed(text: string, found: readonly Finding[]): string {
  if (found.length === 0) return text;
  const spans = [...found].sort((a, b) => a.start - b.start);
  const parts: string[] = [];
  let at = 0;
  for (const f of spans) {
    if (f.end <= at) continue;
    const start = Math.max(at, f.start);
    parts.push(text.slice(at, start), "\n".repeat(f.end - start));
    at = f.end;
  }
  parts.push(text.slice(at));
  return parts.join("");
}

function findIn(text: string, from: number, to: number, out: Finding[]): void {
  for (const found of findNumbers(text.slice(from, to), { defaultCountry: DEFAULT_REGION, v2: true })) {
    const start = from + found.startsAt;
    const end = from + found.endsAt;
    if (!dateOrVersion(text, start, end)) out.push(piiFinding("phone", 0.85, start, end));
  }
}

/** A letter or digit right beside a run: then findNumbers' own boundary rules must decide. */
const WORDLIKE = /[\p{L}\p{N}]/u;

/**
 * The common case: the run alone is one valid number, standing apart from words. The library's parse
 * says so at about half the cost of findNumbers over a window, which matters when a prompt holds
 * dozens; every other run still goes to findNumbers.
 */
function wholeRunNumber(text: string, start: number, run: string): boolean {
  if (WORDLIKE.test(text[start - 1] ?? "") || WORDLIKE.test(text[start + run.length] ?? "")) return false;
  return (
    parsePhoneNumberFromString(run, { defaultCountry: DEFAULT_REGION, extract: false })?.isValid() === true
  );
}

// ---- national numbers near a country's name ----
const ALIASES: Record<string, CountryCode> = {
  uk: "GB",
  britain: "GB",
  "great britain": "GB",
  england: "GB",
  scotland: "GB",
  wales: "GB",
  usa: "US",
  america: "US",
  holland: "NL",
  "the netherlands": "NL",
  "south korea": "KR",
  korea: "KR",
  russia: "RU",
  vietnam: "VN",
  "czech republic": "CZ",
  turkey: "TR",
  // Adjectives: "my Israeli number is 09-7625400", "my Japanese mobile".
  american: "US",
  argentinian: "AR",
  australian: "AU",
  austrian: "AT",
  belgian: "BE",
  brazilian: "BR",
  british: "GB",
  canadian: "CA",
  chilean: "CL",
  chinese: "CN",
  colombian: "CO",
  czech: "CZ",
  danish: "DK",
  dutch: "NL",
  egyptian: "EG",
  emirati: "AE",
  filipino: "PH",
  finnish: "FI",
  french: "FR",
  german: "DE",
  greek: "GR",
  hungarian: "HU",
  indian: "IN",
  indonesian: "ID",
  irish: "IE",
  israeli: "IL",
  italian: "IT",
  japanese: "JP",
  kenyan: "KE",
  korean: "KR",
  malaysian: "MY",
  mexican: "MX",
  nigerian: "NG",
  norwegian: "NO",
  pakistani: "PK",
  polish: "PL",
  portuguese: "PT",
  romanian: "RO",
  russian: "RU",
  saudi: "SA",
  singaporean: "SG",
  spanish: "ES",
  swedish: "SE",
  swiss: "CH",
  thai: "TH",
  turkish: "TR",
  ukrainian: "UA",
  vietnamese: "VN",
};
const regionNames = new Intl.DisplayNames(["en"], { type: "region" });
const COUNTRY_OF = new Map<string, CountryCode>(Object.entries(ALIASES));
for (const code of getCountries()) {
  const name = regionNames.of(code);
  if (name && name !== code) COUNTRY_OF.set(name.toLowerCase(), code);
}
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const COUNTRY = new RegExp(
  `\\b(?:${[...COUNTRY_OF.keys()]
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp)
    .join("|")})\\b`,
  "gi",
);
// How far from the number a country's name still says which country it is.
const HINT_DISTANCE = 60;

/** The index of the first hint at or after `position` (binary search). */
function firstHintFrom(hints: readonly [number, CountryCode][], position: number): number {
  let lo = 0;
  let hi = hints.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((hints[mid] as [number, CountryCode])[0] < position) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Runs no reading found a number in, read again as national numbers of a country named near them. */
function nationalNumbers(text: string, runs: readonly [number, number][], out: Finding[]): void {
  const hints: [number, CountryCode][] = [];
  COUNTRY.lastIndex = 0;
  for (let m = COUNTRY.exec(text); m !== null; m = COUNTRY.exec(text)) {
    const code = COUNTRY_OF.get(m[0].toLowerCase());
    if (code) hints.push([m.index + m[0].length / 2, code]);
  }
  if (hints.length === 0) return;
  for (const [start, end] of runs) {
    let best: CountryCode | undefined;
    let distance = HINT_DISTANCE;
    // Only the hints within reach (hints are in text order): a text of many names and many numbers
    // would otherwise cost names × numbers.
    for (let i = firstHintFrom(hints, start - HINT_DISTANCE); i < hints.length; i++) {
      const [at, code] = hints[i] as [number, CountryCode];
      if (at > end + HINT_DISTANCE) break;
      const d = at < start ? start - at : at > end ? at - end : 0;
      if (d <= distance) {
        distance = d;
        best = code;
      }
    }
    if (!best) continue;
    const run = text.slice(start, end);
    if (parsePhoneNumberFromString(run, { defaultCountry: best, extract: false })?.isValid() === true)
      out.push(piiFinding("phone", 0.8, start, end));
  }
}

export const detectPhones: Detector = (original, out) => {
  const before = out.length;
  findPhones(original, out);
  // "17031 2202 Rissik St": a house number and a street, whichever reading took the digits.
  for (let i = out.length - 1; i >= before; i--) {
    const f = out[i];
    if (f && streetAfter(original, f.end)) out.splice(i, 1);
  }
};

function findPhones(original: string, out: Finding[]): void {
  const text = unclaimed(original, out);
  const candidates: [number, number][] = [];
  const short: [number, number][] = [];
  // Candidates whose context windows touch are searched as one window: a number is then never cut
  // in two by its neighbour's window (cut, "+376 312 345 +971 50 123 4567" lost the second number).
  let from = -1;
  let to = -1;
  RUN.lastIndex = 0;
  for (let m = RUN.exec(text); m !== null; m = RUN.exec(text)) {
    const end = m.index + m[0].length;
    const digits = digitsIn(text, m.index, end);
    if (digits < 6) continue;
    // Six digits are a phone number only when a phone word says so (local numbers of small regions).
    // (They skip the country-name search, which reads the whole text.)
    if (digits === 6) {
      short.push([m.index, end]);
      continue;
    }
    // An ISO date ("2017-02-26 20:37:16") is no phone number, whatever the digits after it.
    if (ISO_DATE.test(m[0])) continue;
    if (wholeRunNumber(text, m.index, m[0]) && !dateOrVersion(text, m.index, end)) {
      out.push(piiFinding("phone", 0.85, m.index, end));
      continue;
    }
    candidates.push([m.index, end]);
    const start = Math.max(0, m.index - CONTEXT);
    if (to >= 0 && start <= to) {
      to = Math.min(text.length, end + CONTEXT);
      continue;
    }
    if (to >= 0) findIn(text, from, to, out);
    from = start;
    to = Math.min(text.length, end + CONTEXT);
  }
  if (to >= 0) findIn(text, from, to, out);
  nanpShaped(text, out);
  if (candidates.length === 0 && short.length === 0) return;
  let unread = unreadRuns(candidates, out);
  // Country names are looked for in the text as written (one may sit in a claimed e-mail address).
  if (unread.length > 0) nationalNumbers(original, unread, out);
  unread = unreadRuns(unread.concat(short), out);
  for (const [start, end] of unread)
    if (!labelledRun(text, start, end, out)) trunkShaped(text, start, end, out);
}

/** The runs no finding overlaps (findings are few: a direct test beats marking a text-long array). */
function unreadRuns(runs: [number, number][], out: readonly Finding[]): [number, number][] {
  return runs.filter(([start, end]) => !out.some((f) => f.start < end && start < f.end));
}
