// Checksums that turn "looks like a number" into "is one": they are what keeps the structured PII
// detectors precise on arbitrary digit runs (order ids, timestamps, versions).

/** Luhn (ISO/IEC 7812-1) over the digits of `s`, ignoring every other character. */
export function luhnValid(s: string): boolean {
  let sum = 0;
  let double = false;
  let digits = 0;
  for (let i = s.length - 1; i >= 0; i--) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) continue;
    digits++;
    let d = c;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return digits > 0 && sum % 10 === 0;
}

/**
 * ISO 13616 / ISO 7064 mod 97-10 over a compact IBAN (no spaces, upper case): move the first four
 * characters to the end, letters become 10..35, and the number must leave remainder 1.
 * Computed piecewise so it never needs a big integer.
 */
export function ibanMod97Valid(compact: string): boolean {
  const n = compact.length;
  let rem = 0;
  for (let k = 0; k < n; k++) {
    const c = compact.charCodeAt((k + 4) % n);
    if (c >= 48 && c <= 57) {
      rem = (rem * 10 + (c - 48)) % 97;
    } else if (c >= 65 && c <= 90) {
      rem = (rem * 100 + (c - 55)) % 97;
    } else {
      return false;
    }
  }
  return rem === 1;
}
