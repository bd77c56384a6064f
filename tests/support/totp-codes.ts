// TOTP codes for tests, from an implementation independent of the one under test (otplib): oathtool
// (Debian package `oathtool`, installed by CI) when it is on the PATH, otherwise the few lines of
// RFC 6238 below, checked against the RFC's own test vectors, so `bun test` still passes on a machine
// with nothing but Node.js and npm.
import { createHmac } from "node:crypto";

const base32Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

function base32Decode(text: string): Buffer {
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of text.replace(/=+$/, "").toUpperCase()) {
    const index = base32Alphabet.indexOf(char);
    if (index < 0) throw new Error(`not base32: ${char}`);
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(bytes);
}

/** RFC 6238 with HMAC-SHA-1 and 30-second steps from the Unix epoch. */
export function rfc6238(secretBase32: string, unixSeconds: number, digits = 6): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(unixSeconds / 30)));
  const mac = createHmac("sha1", base32Decode(secretBase32)).update(counter).digest();
  const offset = (mac[mac.length - 1] as number) & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, "0");
}

export const oathtoolAvailable = Bun.which("oathtool") !== null;

export function oathtool(secretBase32: string, unixSeconds: number): string {
  const run = Bun.spawnSync(["oathtool", "--totp", "-b", secretBase32, "--now", `@${unixSeconds}`]);
  if (run.exitCode !== 0) throw new Error(`oathtool failed: ${run.stderr.toString()}`);
  return run.stdout.toString().trim();
}

/** The code of `secretBase32` at `unixSeconds`, from oathtool when installed. */
export const totpCode = (secretBase32: string, unixSeconds: number): string =>
  oathtoolAvailable ? oathtool(secretBase32, unixSeconds) : rfc6238(secretBase32, unixSeconds);
