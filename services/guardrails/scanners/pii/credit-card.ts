import { luhnValid } from "./checksums.ts";
import { type Detector, piiFinding } from "./types.ts";

// 13 or more digits, optionally grouped by single spaces, dashes or dots (as printed on cards, receipts
// and forms).
// A run may go on past the card ("4111 1111 1111 1111 12/26"), so it is cut at group boundaries below.
// At most 19 digits are matched (the longest card); REST then skips the remainder of a longer run
// when it holds no card, so each character is read a bounded number of times.
const LOOSE = /(?<![\d.-])\d(?:[ .-]?\d){12,18}/g;
const REST = /(?:[ .-]?\d)*/y;

const positions: number[] = [];

function allSame(digits: string): boolean {
  for (let i = 1; i < digits.length; i++) if (digits[i] !== digits[0]) return false;
  return true;
}

// Cards are printed in groups of four (the last group shorter on 13-, 15-, 17-19-digit numbers), or
// 4-6-5 / 4-6-4 (Amex, Diners), or 8-8. Other groupings of Luhn-valid numbers are other things: IMEIs are
// written 2-6-6-1, for one.
function cardGrouping(groups: number[]): boolean {
  if (groups.length === 1) return true;
  // Two halves of eight (a 16-digit number split where a form's field ends).
  if (groups.length === 2 && groups[0] === 8 && groups[1] === 8) return true;
  if (groups.length === 3 && groups[0] === 4 && groups[1] === 6 && (groups[2] === 5 || groups[2] === 4))
    return true;
  for (let i = 0; i < groups.length - 1; i++) if (groups[i] !== 4) return false;
  const last = groups[groups.length - 1] as number;
  return last >= 1 && last <= 4;
}

const groupLengths: number[] = [];

/** The longest prefix of 13..19 digits that ends at a group boundary and passes Luhn. */
function cardEnd(text: string, start: number, end: number): number {
  positions.length = 0;
  let digits = "";
  // A card has 19 digits at most: a longer run is read no further (it may hold thousands).
  for (let i = start; i < end && digits.length < 19; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      positions.push(i);
      digits += text[i];
    }
  }
  // Issuer identification numbers start with 2 to 6 (Mastercard, Amex/Diners/JCB, Visa, Mastercard,
  // Discover/UnionPay/Maestro); 7-9 (fleet, telecom, national) are not payment cards.
  const first = digits.charCodeAt(0) - 48;
  // UATP cards (airline, 1 + 14 digits) are the one payment card starting with 1.
  if ((first < 2 && !(first === 1 && digits.length === 15)) || first > 6) return -1;
  for (let len = Math.min(19, digits.length); len >= 13; len--) {
    if (first === 1 && len !== 15) continue;
    const last = positions[len - 1] as number;
    const next = text.charCodeAt(last + 1);
    if (next >= 48 && next <= 57) continue; // not at a group boundary
    const candidate = digits.slice(0, len);
    if (allSame(candidate) || !luhnValid(candidate)) continue;
    groupLengths.length = 0;
    let run = 0;
    for (let k = 0; k < len; k++) {
      run++;
      if (k === len - 1 || (positions[k + 1] as number) > (positions[k] as number) + 1) {
        groupLengths.push(run);
        run = 0;
      }
    }
    if (cardGrouping(groupLengths)) return last + 1;
  }
  return -1;
}

export const detectCreditCards: Detector = (text, out) => {
  LOOSE.lastIndex = 0;
  for (let m = LOOSE.exec(text); m !== null; m = LOOSE.exec(text)) {
    const end = cardEnd(text, m.index, m.index + m[0].length);
    if (end > 0) {
      out.push(piiFinding("credit_card", 0.95, m.index, end));
      // The run may go on with more cards ("4111 1111 1111 1111 5500 0000 0000 0004").
      LOOSE.lastIndex = end;
    } else {
      REST.lastIndex = LOOSE.lastIndex;
      REST.exec(text);
      LOOSE.lastIndex = REST.lastIndex;
    }
  }
};
