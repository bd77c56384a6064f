// Decoders for payloads hidden in encodings. Each returns readable text or null; "readable" means
// mostly printable ASCII, so hashes, ids and random tokens (which decode to noise) are left alone.

const MIN_DECODED = 8;

function readable(s: string): boolean {
  if (s.length < MIN_DECODED) return false;
  let printable = 0;
  let letters = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 32 && c < 127) || c === 10 || c === 13 || c === 9) printable++;
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) letters++;
  }
  return printable / s.length >= 0.9 && letters / s.length >= 0.5;
}

/** Base64 or base64url runs of at least 16 characters. */
export const BASE64_RUN = /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{16,}={0,2}(?![A-Za-z0-9+/=_-])/g;

export function decodeBase64(run: string): string | null {
  // Mixed case or digits: plain long words ("internationalization") are not worth decoding.
  if (!/[A-Z]/.test(run) || !/[a-z0-9]/.test(run)) return null;
  try {
    let b64 = run.replace(/=+$/, "").replace(/-/g, "+").replace(/_/g, "/");
    if (b64.length % 4 === 1) return null;
    b64 += "==".slice(0, (4 - (b64.length % 4)) % 4);
    const s = atob(b64);
    return readable(s) ? s : null;
  } catch {
    return null;
  }
}

/**
 * Runs of hex byte pairs, optionally separated ("69 67 6e", "69:67:6e", "\x69\x67"). The first
 * four pairs are spelt out so the regex engine can skip ahead on text without them.
 */
export const HEX_RUN =
  /[0-9A-Fa-f]{2}[ :,]?(?:\\x|0x)?[0-9A-Fa-f]{2}[ :,]?(?:\\x|0x)?[0-9A-Fa-f]{2}[ :,]?(?:\\x|0x)?[0-9A-Fa-f]{2}(?:[ :,]?(?:\\x|0x)?[0-9A-Fa-f]{2}){4,}/g;

export function decodeHex(run: string): string | null {
  const hex = run.replace(/\\x|0x|[ :,]/g, "");
  if (hex.length < 16) return null;
  if (hex.length % 2 !== 0) return null;
  let s = "";
  for (let i = 0; i < hex.length; i += 2) s += String.fromCharCode(Number.parseInt(hex.slice(i, i + 2), 16));
  return readable(s) ? s : null;
}

/** Runs of URL-encoded text: at least three percent-encoded bytes among unreserved characters. */
export const PERCENT_RUN = /(?:[A-Za-z0-9._~!*'()+-]*%[0-9A-Fa-f]{2}){3,}[A-Za-z0-9._~!*'()+-]*/g;

export function decodePercent(run: string): string | null {
  try {
    const s = decodeURIComponent(run.replace(/\+/g, " "));
    return readable(s) ? s : null;
  } catch {
    return null;
  }
}

/** Unicode tag characters (U+E0020..U+E007E) mirror ASCII: text written in them is invisible. */
export function decodeTags(text: string): { hidden: string; start: number; end: number } | null {
  let hidden = "";
  let start = -1;
  let end = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0xdb40) continue; // high surrogate of U+E0000..U+E03FF
    const cp = text.codePointAt(i) as number;
    if (cp >= 0xe0000 && cp <= 0xe007f) {
      if (start < 0) start = i;
      end = i + 2;
      if (cp >= 0xe0020 && cp <= 0xe007e) hidden += String.fromCharCode(cp - 0xe0000);
      i++;
    }
  }
  return start < 0 ? null : { hidden, start, end };
}

export function rot13(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out += c >= 97 && c <= 122 ? String.fromCharCode(((c - 97 + 13) % 26) + 97) : s[i];
  }
  return out;
}
