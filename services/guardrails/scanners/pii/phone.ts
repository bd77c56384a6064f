import { findNumbers, parsePhoneNumberFromString } from "libphonenumber-js/max";
import { type Detector, piiFinding } from "./types.ts";

// Phone numbers are found and validated by libphonenumber-js (Google's libphonenumber metadata):
// a number counts only when it is a valid number of its region, which is what keeps dates, prices
// and ids out. International numbers (+CC ...) are found for every region; numbers written without
// a country code are read as US/NANP numbers (the default region).
const DEFAULT_REGION = "US";

// The library is thorough and slow (~150 µs per KB of text with digits in it), so it only sees the
// stretches that could hold a number: 7 or more digits within one run of digits, spaces and phone
// punctuation. A little context either side lets it apply its own boundary rules.
const RUN = /[+(\uFF0B]?\d[\d \u00A0().\-/\u2010-\u2015\uFF0D]{5,}\d/g;
const CONTEXT = 8;

function digitsIn(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) n++;
  }
  return n;
}

/** A letter or digit right beside a run: then the library's own boundary rules must decide. */
const WORDLIKE = /[\p{L}\p{N}]/u;

/**
 * The common case first: the run alone is one valid number, standing apart from words (what
 * findNumbers would report too, at a third of its cost, which matters when a prompt holds dozens).
 */
function wholeRunNumber(text: string, start: number, run: string): boolean {
  if (WORDLIKE.test(text[start - 1] ?? "") || WORDLIKE.test(text[start + run.length] ?? "")) return false;
  return (
    parsePhoneNumberFromString(run, { defaultCountry: DEFAULT_REGION, extract: false })?.isValid() === true
  );
}

export const detectPhones: Detector = (text, out) => {
  RUN.lastIndex = 0;
  let searchedTo = 0;
  for (let m = RUN.exec(text); m !== null; m = RUN.exec(text)) {
    if (digitsIn(m[0]) < 7) continue;
    if (wholeRunNumber(text, m.index, m[0])) {
      out.push(piiFinding("phone", 0.85, m.index, m.index + m[0].length));
      searchedTo = m.index + m[0].length;
      continue;
    }
    const from = Math.max(searchedTo, m.index - CONTEXT);
    const to = Math.min(text.length, m.index + m[0].length + CONTEXT);
    for (const found of findNumbers(text.slice(from, to), { defaultCountry: DEFAULT_REGION, v2: true })) {
      out.push(piiFinding("phone", 0.85, from + found.startsAt, from + found.endsAt));
    }
    searchedTo = to;
  }
};
