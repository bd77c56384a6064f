import { describe, expect, test } from "bun:test";
import { open, SealedValueError, seal } from "#services/crypto/secret-box.ts";

const key = "k".repeat(43);

describe("secret-box (AES-256-GCM)", () => {
  test("opens what it sealed, and the sealed text does not contain the secret", () => {
    const sealed = seal(key, "JBSWY3DPEHPK3PXP");
    expect(sealed).toStartWith("v1.");
    expect(sealed).not.toContain("JBSWY3DPEHPK3PXP");
    expect(open(key, sealed)).toBe("JBSWY3DPEHPK3PXP");
    expect(open(key, seal(key, ""))).toBe("");
    expect(open(key, seal(key, "ünïcödé ✓"))).toBe("ünïcödé ✓");
  });

  test("sealing twice gives different texts (a fresh IV each time)", () => {
    expect(seal(key, "same")).not.toBe(seal(key, "same"));
  });

  test("another key cannot open it", () => {
    expect(() => open("another key of enough length", seal(key, "secret"))).toThrow(SealedValueError);
  });

  test("an altered value fails to open instead of decrypting to garbage", () => {
    const [v, iv, body] = seal(key, "secret value").split(".") as [string, string, string];
    const bytes = Buffer.from(body, "base64url");
    bytes[0] = (bytes[0] as number) ^ 1;
    expect(() => open(key, `${v}.${iv}.${bytes.toString("base64url")}`)).toThrow(SealedValueError);
    expect(() => open(key, "v2.x.y")).toThrow(SealedValueError);
    expect(() => open(key, "not sealed")).toThrow(SealedValueError);
  });

  test("the error says nothing of the value", () => {
    try {
      open("wrong key, long enough", seal(key, "hunter2-secret"));
    } catch (error) {
      expect(String(error)).not.toContain("hunter2");
      return;
    }
    throw new Error("open did not throw");
  });
});
