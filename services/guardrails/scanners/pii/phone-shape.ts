import type { Finding } from "../../scanner.ts";
import { piiFinding } from "./types.ts";

// Phone numbers libphonenumber cannot vouch for: numbers of unknown regions written in local formats
// ("(88) 684-334", "61 51 81"), numbers with an area code no plan has issued yet, or with an extension.
// Two readings, both stricter about the text than about the number:
// - NANP's shape, (ddd) ddd-dddd / ddd-ddd-dddd / ddd.ddd.dddd, with an optional +1 / 001 prefix and an
//   extension: written that way, ten digits are a phone number far more often than anything else.
// - any grouping of 6 to 15 digits when a phone word ("phone", "call", "tel", "fax", ...) stands
//   just before it, on the same line or as a label ending in ":" on the line above (forms, CVs and
//   signatures print "Phone:" and the number under it). The word must come first: a stream releases text once no finding can grow into
//   it, and a word after the number would turn digits already released into a finding.
// An extension may follow with no space ("4508x769"): "x" and a digit do not end the shape.
const NANP =
  /(?<![\w.+-])(?:(?:\+1|001)[ .-]?)?(?:\(\d{3}\) ?|\d{3}([-.]))\d{3}(?:\1|-)\d{4}(?!(?!x\d)\w|[-.]\d)/g;
const EXTENSION = /^ ?(?:x|ext\.? ?|extension ?|#)\d{1,6}(?!\w)/i;
const PHONE_WORD =
  /(?:\b(?:phone|telephone|tel|mobile|cell|cellphone|fax|call|calling|ring|dial|text|sms|whatsapp|contact|reach|reached|answering|hotline|landline)\b|\bph\.|☎|📞)[^\n\d]{0,24}(?::[ \t]*\r?\n[ \t]*)?$/i;
// A label right after the number, as address books and signatures print them ("061 51 81 office",
// "0910-5877671-Office", "(044)688-7538x8775 mobile"). In streamed output such a number may be released
// before its label arrives (see releasableEnd in stream-scan.ts): there only a leading word protects it.
const PHONE_LABEL_AFTER = /^(?: ?\(|[ -])(?:office|fax|mobile|cell|home|work|phone|tel|landline)\b/i;
// "call a taxi to 03 2657 Koontz Lane": a house number and a street, not a phone.
const STREET_AFTER =
  /^ \p{Lu}\p{L}+ (?:Lane|Street|St|Road|Rd|Avenue|Ave|Drive|Dr|Court|Ct|Way|Boulevard|Blvd|Place|Pl)\b/u;
// A date, a version ("2.2.362"), a range ("2.2.361...2.2.362") or a time is not a phone number.
const NOT_A_PHONE = /\d{1,4}[./-]\d{1,2}[./-](?:19|20)\d\d|(?:19|20)\d\d[./-]\d\d?[./-]\d|\.\.|\d:\d\d/;

// Two shapes no other number takes (ITU-T E.123 national and international notation as written):
// - an international number with the trunk prefix in brackets, "+41 (0)96 471 07 95", "+44 (0)20 ...":
//   the "(0)" says "dial 0 when calling from inside the country"; nothing but a phone number carries it.
// - a national number with its trunk prefix 0 (most regions outside NANP), grouped by spaces or one
//   dash: "024 971 50 30", "0489 25 37 29", "079 0442 1744", "0961-7596216". 9 to 12 digits, the
//   first group 2 to 5 digits, every group 2 or more, so ISBNs ("0-306-40615-2"), versions and dates
//   (dots, slashes, a 4-digit year) stay out; numbers of a region libphonenumber can name are found by
//   the library already, this reads the ones of no region it was told about.
const TRUNK_IN_BRACKETS = /(?<![\w+])\+[1-9]\d{0,2} ?\(0\) ?\d{1,5}(?:[ .-]?\d{2,4}){1,4}(?![\w-]|[.]\d)/y;
const NATIONAL_TRUNK = /(?<![\w.,+/:-])0[1-9]\d{0,3}(?:(?: |-)\d{2,8}){1,4}(?![\w/:-]|[.,]\d)/y;

// The groups of an IBAN that failed its checksum ("NL91 ABNA 0417 1643 00") are not a phone either,
// nor digits a word names as another number ("order 0123 4567 89", "ZIP 01234 5678").
const IBAN_GROUPS_BEFORE = /\b[A-Za-z]{2}\d{2}(?:[ -][A-Za-z0-9]{4})*[ -]$/;
const OTHER_NUMBER_BEFORE =
  /\b(?:order|invoice|batch|zip|postcode|postal code|ref|reference|id|account|acct|iban|bic|tracking|serial|part|sku|ticket|case|item|lot|model|version|build|isbn|issn|isin)\b[^\w\n]{0,4}$/i;
// A date written with spaces ("05 11 2021"), or a list of four-digit numbers ("0421 0422 0423").
const SPACED_DATE = /(?:^|\D)\d{1,2} \d{1,2} (?:19|20)\d\d(?!\d)/;
const FOUR_BY_FOUR = /^\d{4}(?:[ -]\d{4}){2,}$/;

/** A run in the national-trunk shape that is something else by its context or its grouping. */
function otherNumber(text: string, start: number, run: string): boolean {
  const before = text.slice(Math.max(0, start - 40), start);
  return (
    IBAN_GROUPS_BEFORE.test(before) ||
    OTHER_NUMBER_BEFORE.test(before) ||
    SPACED_DATE.test(run) ||
    FOUR_BY_FOUR.test(run)
  );
}

function digitCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57) n++;
  return n;
}

/** The two trunk-prefix shapes above; the caller passes only runs no other reading found. */
export function trunkShaped(text: string, start: number, end: number, out: Finding[]): boolean {
  for (const re of [TRUNK_IN_BRACKETS, NATIONAL_TRUNK]) {
    // Sticky, from the run's start: the look-behind still sees the text before it.
    re.lastIndex = start;
    const m = re.exec(text);
    if (!m || m.index + m[0].length > end) continue;
    const digits = digitCount(m[0]);
    if (digits < 9 || digits > 13 || NOT_A_PHONE.test(m[0])) continue;
    // One dash at most: "0-12-34-56" style runs are part numbers and ranges more often than phones.
    if (re === NATIONAL_TRUNK && (digits > 12 || m[0].split("-").length > 2)) continue;
    if (re === NATIONAL_TRUNK && otherNumber(text, start, m[0])) continue;
    const s = m.index;
    const e = withExtension(text, s + m[0].length);
    if (STREET_AFTER.test(text.slice(e, e + 40))) continue;
    out.push(piiFinding("phone", 0.7, s, e));
    return true;
  }
  return false;
}

/** "03 2657 Koontz Lane": digits followed by a street name are a house number, not a phone. */
export function streetAfter(text: string, end: number): boolean {
  return STREET_AFTER.test(text.slice(end, end + 40));
}

function withExtension(text: string, end: number): number {
  const m = EXTENSION.exec(text.slice(end, end + 20));
  return m ? end + m[0].length : end;
}

export function nanpShaped(text: string, out: Finding[]): void {
  if (text.length < 12) return;
  NANP.lastIndex = 0;
  for (let m = NANP.exec(text); m !== null; m = NANP.exec(text)) {
    const end = m.index + m[0].length;
    out.push(piiFinding("phone", 0.75, m.index, withExtension(text, end)));
  }
}

/** A run of digits and separators (found by phone.ts) read as a phone because a phone word precedes it. */
export function labelledRun(text: string, start: number, end: number, out: Finding[]): boolean {
  const run = text.slice(start, end);
  if (NOT_A_PHONE.test(run)) return false;
  const after = withExtension(text, end);
  const next = text.slice(after, after + 40);
  const labelled =
    (PHONE_WORD.test(text.slice(Math.max(0, start - 40), start)) && !STREET_AFTER.test(next)) ||
    PHONE_LABEL_AFTER.test(next);
  if (!labelled) return false;
  out.push(piiFinding("phone", 0.7, start, after));
  return true;
}

/** True when a finding of the library reads a date or a version range as a number. */
export function dateOrVersion(text: string, start: number, end: number): boolean {
  return NOT_A_PHONE.test(text.slice(start, end));
}
