import type { Finding } from "../../scanner.ts";
import { piiFinding } from "./types.ts";

// Phone numbers libphonenumber cannot vouch for: numbers of unknown regions written in local formats
// ("(88) 684-334", "61 51 81"), numbers with an area code no plan has issued yet, or with an extension.
// Two readings, both stricter about the text than about the number:
// - NANP's shape, (ddd) ddd-dddd / ddd-ddd-dddd / ddd.ddd.dddd, with an optional +1 / 001 prefix and an
//   extension: written that way, ten digits are a phone number far more often than anything else.
// - any grouping of 6 to 15 digits when a phone word ("phone", "call", "tel", "fax", ...) stands
//   just before it. The word must come first: a stream releases text once no finding can grow into
//   it, and a word after the number would turn digits already released into a finding.
const NANP = /(?<![\w.+-])(?:(?:\+1|001)[ .-]?)?(?:\(\d{3}\) ?|\d{3}([-.]))\d{3}(?:\1|-)\d{4}(?!\w|[-.]\d)/g;
const EXTENSION = /^ ?(?:x|ext\.? ?|extension ?|#)\d{1,6}(?!\w)/i;
const PHONE_WORD =
  /(?:\b(?:phone|telephone|tel|mobile|cell|cellphone|fax|call|calling|ring|dial|text|sms|whatsapp|contact|reach|reached|answering|hotline|landline)\b|\bph\.|☎|📞)[^\n\d]{0,24}$/i;
// A label right after the number, as address books and signatures print them ("061 51 81 office",
// "0910-5877671-Office", "(044)688-7538x8775 mobile"). In streamed output such a number may be released
// before its label arrives (see releasableEnd in stream-scan.ts): there only a leading word protects it.
const PHONE_LABEL_AFTER = /^(?: ?\(|[ -])(?:office|fax|mobile|cell|home|work|phone|tel|landline)\b/i;
// "call a taxi to 03 2657 Koontz Lane": a house number and a street, not a phone.
const STREET_AFTER =
  /^ \p{Lu}\p{L}+ (?:Lane|Street|St|Road|Rd|Avenue|Ave|Drive|Dr|Court|Ct|Way|Boulevard|Blvd|Place|Pl)\b/u;
// A date, a version ("2.2.362"), a range ("2.2.361...2.2.362") or a time is not a phone number.
const NOT_A_PHONE = /\d{1,4}[./-]\d{1,2}[./-](?:19|20)\d\d|(?:19|20)\d\d[./-]\d\d?[./-]\d|\.\.|\d:\d\d/;

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
