import { describe, expect, test } from "bun:test";
import { Trigrams } from "#services/guardrails/prefilter.ts";
import { IPV6_CANDIDATE, ipv6CandidatesFrom } from "#services/guardrails/scanners/pii/ip-address.ts";
import { mayHoldSpeltOut, SPELT_OUT, speltOutFrom } from "#services/guardrails/scanners/toxicity/index.ts";

// The scanners search some patterns only from where a loop over the text says a match can start.
// That place must never lie after the pattern's first match: checked on random texts made of the
// characters that matter, and on a few written out.

function random(alphabet: string, length: number, seed: number): string {
  let s = "";
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    s += alphabet[(x >>> 16) % alphabet.length];
  }
  return s;
}

function firstMatch(re: RegExp, text: string): number {
  re.lastIndex = 0;
  const m = re.exec(text);
  re.lastIndex = 0;
  return m === null ? -1 : m.index;
}

const grams = new Trigrams();

function agree(from: (text: string) => number, re: RegExp, text: string): void {
  if (re === SPELT_OUT && firstMatch(re, text) >= 0) expect(mayHoldSpeltOut(grams.of(text))).toBe(true);
  const first = firstMatch(re, text);
  const start = from(text);
  if (first < 0) return;
  expect(start).toBeGreaterThanOrEqual(0);
  expect(start).toBeLessThanOrEqual(first);
}

/** agree() on 3,000 random texts of `alphabet`; how many of them the pattern matched. */
function agreeOnRandom(from: (text: string) => number, re: RegExp, alphabet: string): number {
  let matched = 0;
  for (let seed = 1; seed <= 3000; seed++) {
    const text = random(alphabet, 4 + (seed % 40), seed);
    if (firstMatch(re, text) >= 0) matched++;
    agree(from, re, text);
  }
  return matched;
}

describe("where a pattern's search starts", () => {
  test("spelt-out words: never after the first match", () => {
    for (const text of [
      "f.u.c.k off",
      "so I said a b, then s h i t",
      "x  y  z",
      "a.b",
      "ab c d e",
      "I a-b_c*d",
    ])
      agree(speltOutFrom, SPELT_OUT, text);
    expect(speltOutFrom("Please summarise the following notes in a short list.")).toBe(-1);
    // Two single letters one run of non-letters apart, read from the trigram index.
    expect(mayHoldSpeltOut(grams.of("I think a draft is due"))).toBe(false);
    expect(mayHoldSpeltOut(grams.of("say s h"))).toBe(true);
    expect(agreeOnRandom(speltOutFrom, SPELT_OUT, "ab  .-_*Xy,")).toBeGreaterThan(300);
  });

  test("IPv6 candidates: never after the first match", () => {
    for (const text of [
      "note: see 2001:db8::1 now",
      "a: b: c",
      "::1",
      "fe80:0000:0000:0000:0202:b3ff:fe1e:8329",
    ])
      agree(ipv6CandidatesFrom, IPV6_CANDIDATE, text);
    expect(ipv6CandidatesFrom("Agenda: budget, hiring. Notes: none.")).toBe(-1);
    expect(agreeOnRandom(ipv6CandidatesFrom, IPV6_CANDIDATE, "0a:f :. g1")).toBeGreaterThan(300);
  });
});
