import { describe, expect, test } from "bun:test";
import injectionCorpus from "#bench/guardrails-corpus/prompt_injection.json";
import toxicityCorpus from "#bench/guardrails-corpus/toxicity.json";
import { toxicityScanner, toxicityScore } from "#services/guardrails/scanners/toxicity/index.ts";
import {
  obscenityHasMatch,
  profanityGate,
  profanityGateActive,
} from "#services/guardrails/scanners/toxicity/profanity.ts";

const types = (text: string) => [
  ...new Set(toxicityScanner.scan(text, { action: "block" }).map((f) => f.type)),
];

describe("toxicity", () => {
  test("profanity, also obfuscated", () => {
    for (const text of [
      "what the fuck",
      "you sh1t",
      "f.u.c.k off",
      "fuuuuuck this",
      "a$$hole",
      "a55hole",
      "5h17",
    ]) {
      expect(types(text)).toContain("profanity");
    }
  });

  test("slurs, threats, incitement and hate without a profane word", () => {
    expect(types("I will kill you tomorrow")).toContain("threat");
    expect(types("just kys")).toContain("self_harm_incitement");
    expect(types("you are a worthless idiot")).toContain("insult");
    expect(types("immigrants are vermin")).toContain("hate");
  });

  test("Scunthorpe words, clinical terms and ordinary prose are not toxic", () => {
    for (const text of [
      "Scunthorpe",
      "the assassin's class",
      "a cocktail in Essex",
      "What a lovely sweater!",
      // Digits alone are numbers, not leetspeak: "455" is not "ass", "5h17" stays caught below.
      "order 455 ships on 2-455",
      "room 455, extension 3455",
      // Hashes and UUIDs are identifiers, though leetspeak reads "fa6" and "a55" in them.
      "commit fa6b8bb0 and request bb5b54ab-a55c",
    ]) {
      expect(types(text)).toEqual([]);
    }
    // A sexual or anatomical word alone scores below the default threshold.
    expect(toxicityScore("the sex ratio of the population")).toBeLessThan(0.5);
    expect(types("the sex ratio of the population")).toEqual([]);
  });

  test("the threshold decides; findings carry offsets only", () => {
    const text = "this is shit";
    expect(toxicityScanner.scan(text, { action: "block", threshold: 0.9 })).toEqual([]);
    const [f] = toxicityScanner.scan(text, { action: "block" });
    expect(f && text.slice(f.start, f.end)).toBe("shit");
    expect(JSON.stringify(f)).not.toContain("shit");
  });

  test("the fast gate is in use and never hides a text obscenity flags", () => {
    expect(profanityGateActive).toBe(true);
    const texts = [...toxicityCorpus, ...injectionCorpus].map((i) => i.text);
    let missed = 0;
    for (const t of texts) if (!profanityGate(t) && obscenityHasMatch(t)) missed++;
    expect(missed).toBe(0);
  });
});
