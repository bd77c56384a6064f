// Secrets kept in the database (TOTP secrets, provider credentials) are sealed with AES-256-GCM under
// ENCRYPTION_KEY, so a copy of the database alone reveals none of them, and a tampered value fails to
// open instead of decrypting to garbage.
//
// Sealed format: `v1.<iv>.<ciphertext + 16-byte tag>`, both base64url. The version names the
// algorithm and the key derivation, so a later change can still open what v1 sealed.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const version = "v1";
const ivBytes = 12;
const tagBytes = 16;

const derived = new Map<string, Buffer>();

/** ENCRYPTION_KEY is any string of 16+ characters; HKDF turns it into the 32-byte AES key. */
function aesKey(key: string): Buffer {
  let aes = derived.get(key);
  if (!aes) {
    aes = Buffer.from(hkdfSync("sha256", key, "", "llm-platform secret-box v1", 32));
    derived.set(key, aes);
  }
  return aes;
}

export function seal(key: string, plaintext: string): string {
  const iv = randomBytes(ivBytes);
  const cipher = createCipheriv("aes-256-gcm", aesKey(key), iv);
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return `${version}.${iv.toString("base64url")}.${body.toString("base64url")}`;
}

export class SealedValueError extends Error {
  constructor() {
    // Says nothing of the value: it may be a secret.
    super("a sealed value could not be opened (wrong ENCRYPTION_KEY, or the value was altered)");
    this.name = "SealedValueError";
  }
}

export function open(key: string, sealed: string): string {
  const [v, iv, body] = sealed.split(".");
  if (v !== version || !iv || !body) throw new SealedValueError();
  const ivBuffer = Buffer.from(iv, "base64url");
  const bodyBuffer = Buffer.from(body, "base64url");
  if (ivBuffer.length !== ivBytes || bodyBuffer.length < tagBytes) throw new SealedValueError();
  try {
    const decipher = createDecipheriv("aes-256-gcm", aesKey(key), ivBuffer);
    decipher.setAuthTag(bodyBuffer.subarray(bodyBuffer.length - tagBytes));
    const plain = Buffer.concat([
      decipher.update(bodyBuffer.subarray(0, bodyBuffer.length - tagBytes)),
      decipher.final(),
    ]);
    return plain.toString("utf8");
  } catch {
    throw new SealedValueError();
  }
}
