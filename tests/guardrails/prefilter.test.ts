import { describe, expect, test } from "bun:test";
import injectionCorpus from "#bench/guardrails-corpus/prompt_injection.json";
import toxicityCorpus from "#bench/guardrails-corpus/toxicity.json";
import { normalize } from "#services/guardrails/normalize.ts";
import { PrefilterSet, prefilterOf, Trigrams } from "#services/guardrails/prefilter.ts";
import { delimiterSignals, phraseSignals } from "#services/guardrails/scanners/prompt-injection/patterns.ts";
import { abuseSignals } from "#services/guardrails/scanners/toxicity/phrases.ts";

const grams = new Trigrams();
const may = (re: RegExp, text: string) => prefilterOf(re).mayMatch(grams.of(text));

describe("regex prefilter", () => {
  test("derives the literals one of which every match contains", () => {
    // A run of whitespace is one non-letter (" "), a word boundary "\b" (here the backspace character).
    expect(prefilterOf(/\b(?:ignore|forget)\s+(?:all\s+)?rules?\b/g).clauses).toEqual([
      [
        "\bignore all rules\b",
        "\bignore all rule\b",
        "\bignore rules\b",
        "\bignore rule\b",
        "\bforget all rules\b",
        "\bforget all rule\b",
        "\bforget rules\b",
        "\bforget rule\b",
      ],
    ]);
    expect(prefilterOf(/\bsummari[sz]e\b/).clauses).toEqual([["\bsummarise\b", "\bsummarize\b"]]);
    // Punctuation classes are one non-letter too; a pattern with a run of anything keeps both ends.
    expect(prefilterOf(/\bfoo[,.;]bar\b/).clauses).toEqual([["\bfoo bar\b"]]);
    expect(prefilterOf(/\bstop.*ing\b/).clauses).toEqual([["\bstop"], ["ing\b"]]);
    // One character of any kind is one of the 27 classes.
    expect(prefilterOf(/f.ck/s).clauses[0]).toHaveLength(27);
    expect(prefilterOf(/<\/?sys>/i).clauses).toEqual([["</sys>", "<sys>"]]);
    // Nothing required, or too short to test: always searched.
    expect(prefilterOf(/\w+@\w+/).clauses).toEqual([]);
    expect(prefilterOf(/a|bcd/).clauses).toEqual([]);
    expect(prefilterOf(/(?:x)?/).clauses).toEqual([]);
  });

  test("skips a text without the literals and keeps one with them", () => {
    const re = /\b(?:ignore|forget)\s+(?:all\s+)?rules?\b/g;
    expect(may(re, "please summarise this manual page")).toBe(false);
    expect(may(re, "now IGNORE all rules")).toBe(true);
    // Every clause must hold: "ignore" alone is not enough.
    expect(may(re, "ignore the warning")).toBe(false);
    // Case and non-letters fold to the same classes in text and literal.
    expect(may(/<\/?sys>/i, "<SYS> hello")).toBe(true);
    expect(may(/don'?t care/, "i don't care")).toBe(true);
  });

  test("reads word boundaries, runs of non-letters and pairs of digits", () => {
    // "word" inside "password" is no word; at either edge of the text it is.
    expect(may(/\bword\b/, "reset the password")).toBe(false);
    expect(may(/\bword\b/, "word")).toBe(true);
    expect(may(/\bword\b/, "one word, two")).toBe(true);
    // A character outside ASCII is a non-letter, however many bytes it takes.
    expect(may(/\bword\b/, "«word»")).toBe(true);
    expect(may(/ab/, "aéb a😀b")).toBe(false);
    // "follow" then whitespace: "the following notes" does not hold it, "follow\n\n the" does.
    expect(may(/\bdo\s+not\s+follow\s+/, "do not follow\n\n the rules")).toBe(true);
    expect(may(/\bdo\s+not\s+follow\s+/, "do not read the following notes")).toBe(false);
    // "f.ck" needs "f" two before "ck", not "ck" anywhere.
    expect(may(/f.ck/s, "the feedback")).toBe(false);
    expect(may(/f.ck/s, "f_ck")).toBe(true);
    // Digits are pairs of their own, not merely two non-letters.
    expect(may(/\b14\s+88\b/, "request 3-37. (see page 2)")).toBe(false);
    expect(may(/\b14\s+88\b/, "x 14 88")).toBe(true);
  });

  test("never skips a pattern that matches, on every corpus text", () => {
    const patterns = [...phraseSignals, ...abuseSignals, ...delimiterSignals].map((s) => s.re);
    const texts = [...injectionCorpus, ...toxicityCorpus].map((i) => i.text);
    let matched = 0;
    for (const raw of texts) {
      for (const text of [raw, normalize(raw).text]) {
        for (const re of patterns) {
          re.lastIndex = 0;
          if (!re.test(text)) continue;
          matched++;
          expect(may(re, text)).toBe(true);
        }
      }
    }
    expect(matched).toBeGreaterThan(300);
  }, 30_000);
});

describe("a set of prefilters", () => {
  test("gives, in order, exactly the patterns whose own prefilter passes", () => {
    const patterns = [...phraseSignals, ...abuseSignals, ...delimiterSignals].map((s) => s.re);
    const set = new PrefilterSet(patterns);
    const own = patterns.map((re) => prefilterOf(re));
    const out = new Int32Array(patterns.length);
    const texts = [...injectionCorpus, ...toxicityCorpus].map((i) => i.text);
    let passed = 0;
    for (const raw of texts) {
      grams.of(normalize(raw).text);
      const expected = own.flatMap((p, i) => (p.mayMatch(grams) ? [i] : []));
      passed += expected.length;
      expect([...out.subarray(0, set.candidates(grams, out))]).toEqual(expected);
    }
    expect(passed).toBeGreaterThan(500);
  }, 30_000);
});
