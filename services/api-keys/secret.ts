// What an API key looks like: `sk-` and 48 random base62 characters (about 285 bits), so it survives
// a double-click and any URL or header unescaped. Only its SHA-256 is stored: a key is already
// high-entropy, so a fast hash is enough (no salt, no slow KDF), and it lets a presented key be
// found by an index lookup instead of comparing it against every row.
import { createHash, randomBytes } from "node:crypto";

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const randomLength = 48;
const prefixLength = 8;
export const apiKeyPattern = /^sk-[A-Za-z0-9]{48}$/;

/** Uniform base62: bytes at or above 248 (4 × 62) are dropped rather than folded, so no bias. */
function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= 248) continue;
      out += alphabet[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export interface NewApiKey {
  key: string;
  hash: string;
  prefix: string;
}

export function newApiKey(): NewApiKey {
  const key = `sk-${randomBase62(randomLength)}`;
  return { key, hash: hashApiKey(key), prefix: key.slice(0, 3 + prefixLength) };
}

export const hashApiKey = (key: string): string => createHash("sha256").update(key).digest("hex");
