import { describe, expect, test } from "bun:test";
import { latency, mixedPiiPrompt, onePromptOf, scanAll } from "#bench/guardrails.ts";
import piiCorpus from "#bench/guardrails-corpus/pii.json";
import injectionCorpus from "#bench/guardrails-corpus/prompt_injection.json";
import toxicityCorpus from "#bench/guardrails-corpus/toxicity.json";
import { type CorpusItem, scoreDocuments, scorePii } from "#bench/guardrails-metrics.ts";
import { scanners } from "#services/guardrails/registry.ts";

// The figures of bench/guardrails.ts, asserted: the corpus is labelled material from npm and Debian
// packages (bench/guardrails-corpus/README.md), so a regression of a scanner fails here.

const pii = piiCorpus as CorpusItem[];
const injection = injectionCorpus as CorpusItem[];
const toxicity = toxicityCorpus as CorpusItem[];

describe("guardrail corpus", () => {
  test("has at least 200 positives and 200 negatives per scanner", () => {
    for (const corpus of [pii, injection, toxicity]) {
      expect(corpus.filter((i) => i.label).length).toBeGreaterThanOrEqual(200);
      expect(corpus.filter((i) => !i.label).length).toBeGreaterThanOrEqual(200);
    }
  });

  test("PII: precision and recall of at least 0.95 on every structured type", () => {
    const scores = scorePii(pii, scanners.pii);
    for (const type of ["email", "phone", "credit_card", "iban", "us_ssn", "ip_address"]) {
      expect({ type, precision: scores[type]?.precision }).toEqual({ type, precision: expect.any(Number) });
      expect(scores[type]?.precision).toBeGreaterThanOrEqual(0.95);
      expect(scores[type]?.recall).toBeGreaterThanOrEqual(0.95);
    }
    // Secrets: every finding right; the two misses are fakes that do not follow the providers'
    // formats (an AWS id with 17 characters and a "0", a Stripe key without its sk_ prefix).
    for (const type of ["api_key", "private_key", "jwt"]) expect(scores[type]?.precision).toBe(1);
    expect(scores.jwt?.recall).toBe(1);
    expect(scores.private_key?.recall).toBe(1);
    expect(scores.api_key?.recall).toBeGreaterThanOrEqual(0.7);
  });

  test("prompt injection (patterns and classifier): recall of at least 0.86, no false positive on benign prompts", () => {
    const d = scoreDocuments(injection, scanners.prompt_injection);
    expect(d.all.recall).toBeGreaterThanOrEqual(0.86);
    // The trained classifier must not cost the patterns' precision here (docs/guardrails-evaluation.md).
    expect(d.all.fp).toBe(0);
    // Invisible payloads are always found.
    expect(d.byCategory["+ encoded:tag_smuggling"]?.rate).toBe(1);
    expect(d.byCategory["+ encoded:zero_width"]?.rate).toBe(1);
  });

  test("toxicity: few false positives; recall as measured (a lexicon misses wit)", () => {
    const d = scoreDocuments(toxicity, scanners.toxicity);
    expect(d.fpr).toBeLessThanOrEqual(0.02);
    expect(d.all.precision).toBeGreaterThanOrEqual(0.9);
    // Measured 0.19 (insults that use no abusive word are most of the positives): a floor, so a
    // regression shows.
    expect(d.all.recall).toBeGreaterThanOrEqual(0.17);
  });

  test("a 1 KB prompt is scanned by all three scanners in well under a millisecond", () => {
    const text = onePromptOf(injection.filter((i) => !i.label));
    expect(text.length).toBe(1024);
    const { p50 } = latency(() => scanAll(text), 3_000);
    // bench/guardrails.ts measures ~0.14 ms p50 on an idle machine; CI shares its cores, hence the margin.
    expect(p50).toBeLessThan(0.6 * 1000);
  });

  test("so is a 1 KB prompt full of PII, every value of it found", () => {
    const phones = onePromptOf(pii.filter((i) => i.label).slice(1));
    const mixed = mixedPiiPrompt(pii);
    const found = (text: string) => scanners.pii.scan(text, { action: "redact" });
    expect(found(phones).filter((f) => f.type === "phone")).toHaveLength(24);
    expect(new Set(found(mixed).map((f) => f.type)).size).toBe(9);
    // bench/guardrails.ts measures ~0.25 ms p50 with 24 phone numbers (libphonenumber-js's parse of
    // each is most of it) and ~0.15 ms for the mixed prompt. Bound: the millisecond itself; a CI run
    // beside three test workers on the two cores, on the machine at its slower speed (docs/testing.md),
    // measured 0.78 ms for the phone numbers.
    expect(latency(() => scanAll(phones), 1_000).p50).toBeLessThan(1000);
    expect(latency(() => scanAll(mixed), 1_000).p50).toBeLessThan(1000);
    // The loops (6,000 scans with their warm-up) take about a second idle and several under load;
    // the p50 is what is asserted, not the wall time.
  }, 30_000);
});
