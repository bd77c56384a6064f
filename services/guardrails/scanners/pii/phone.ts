import { findNumbers } from "libphonenumber-js/max";
import { type Detector, piiFinding } from "./types.ts";

// Phone numbers are found and validated by libphonenumber-js (Google's libphonenumber metadata):
// a number counts only when it is a valid number of its region, which is what keeps dates, prices
// and ids out. International numbers (+CC ...) are found for every region; numbers written without
// a country code are read as US/NANP numbers (the default region).
const DEFAULT_REGION = "US";

function digitCount(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) n++;
  }
  return n;
}

export const detectPhones: Detector = (text, out) => {
  // The shortest valid numbers anywhere have 7 digits (with a country code even more); skipping the
  // library below that keeps the common case (prose without numbers) nearly free.
  if (digitCount(text) < 7) return;
  for (const found of findNumbers(text, { defaultCountry: DEFAULT_REGION, v2: true })) {
    out.push(piiFinding("phone", 0.85, found.startsAt, found.endsAt));
  }
};
