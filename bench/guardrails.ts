// Guardrail scanners measured on the labelled corpus in bench/guardrails-corpus (material from npm and
// Debian packages; see its README) and timed on 1 KB prompts. Run: bun bench/guardrails.ts
// tests/guardrails/corpus.test.ts asserts the same figures, so a regression fails CI.

import { classifierScores } from "#services/guardrails/classifier/index.ts";
import { scanners } from "#services/guardrails/registry.ts";
import { promptInjectionScanner } from "#services/guardrails/scanners/prompt-injection/index.ts";
import { toxicityScanner } from "#services/guardrails/scanners/toxicity/index.ts";
import { printPerplexityLoso } from "./guard-datasets/perplexity.ts";
import { guardLosoReport } from "./guard-datasets/report.ts";
import piiCorpus from "./guardrails-corpus/pii.json";
import injectionCorpus from "./guardrails-corpus/prompt_injection.json";
import toxicityCorpus from "./guardrails-corpus/toxicity.json";
import { printIndirectLoso } from "./guardrails-indirect.ts";
import { type CorpusItem, scoreDocuments, scorePii } from "./guardrails-metrics.ts";

// The corpus files, typed once (their JSON already has CorpusItem's shape).
const injectionItems: CorpusItem[] = injectionCorpus;
const toxicityItems: CorpusItem[] = toxicityCorpus;
const piiItems: CorpusItem[] = piiCorpus;

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export function onePromptOf(items: readonly CorpusItem[], bytes = 1024): string {
  let text = "";
  for (const item of items) {
    if (text.length >= bytes) break;
    text += `${item.text} `;
  }
  return text.slice(0, bytes);
}

/**
 * A PII-heavy prompt: the labelled values of the PII corpus alone, one of each type in turn (e-mail,
 * phone, card, IBAN, IP, SSN, API key, JWT, private key), one a line, until `bytes`. Not comma-separated:
 * libphonenumber-js reads ", 3639" after a number as its extension, and the card it belongs to wins.
 */
export function mixedPiiPrompt(items: readonly CorpusItem[], bytes = 1024): string {
  const byType = new Map<string, string[]>();
  for (const item of items) {
    const span = item.spans?.[0];
    if (!item.label || !span) continue;
    const value = item.text.slice(span.start, span.end);
    // A whole RSA block would fill the kilobyte by itself, and a lone BEGIN line (a truncated key)
    // is redacted to the end of the text: only the short complete blocks (Ed25519).
    if (span.type === "private_key" && (value.length > 200 || !value.includes("-----END "))) continue;
    byType.set(span.type, [...(byType.get(span.type) ?? []), value]);
  }
  const order = [
    "email",
    "phone",
    "credit_card",
    "iban",
    "ip_address",
    "us_ssn",
    "api_key",
    "jwt",
    "private_key",
  ];
  let text = "";
  for (let round = 0; text.length < bytes; round++) {
    for (const type of order) {
      const values = byType.get(type) ?? [];
      if (values.length > 0) text += `${values[round % values.length]}\n`;
    }
  }
  return text.slice(0, bytes);
}

export function latency(run: () => unknown, iterations = 20_000): { p50: number; p99: number } {
  for (let i = 0; i < 2_000; i++) run();
  const times = new Float64Array(iterations);
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    run();
    times[i] = performance.now() - t0;
  }
  times.sort();
  return {
    p50: (times[iterations >> 1] as number) * 1000,
    p99: (times[Math.floor(iterations * 0.99)] as number) * 1000,
  };
}

export function scanAll(text: string): number {
  let n = 0;
  for (const s of Object.values(scanners)) n += s.scan(text, { action: "block" }).length;
  return n;
}

if (import.meta.main && process.argv[2] === "loso") guardLosoReport();
else if (import.meta.main && process.argv[2] === "indirect") printIndirectLoso();
// The perplexity filter measured, not shipped (docs/guardrails-evaluation.md).
else if (import.meta.main && process.argv[2] === "perplexity") printPerplexityLoso();
else if (import.meta.main) {
  printIndirectLoso();
  const benign = injectionItems.filter((i) => !i.label);
  const pii = scorePii(piiItems, scanners.pii);
  console.log(
    `\nPII (${piiItems.filter((i) => i.label).length} positive texts, ${piiItems.filter((i) => !i.label).length} negative texts), span level:`,
  );
  console.log("type          TP    FP    FN   precision  recall");
  for (const [type, c] of Object.entries(pii)) {
    console.log(
      `${type.padEnd(12)} ${String(c.tp).padStart(4)} ${String(c.fp).padStart(5)} ${String(c.fn).padStart(5)}   ${pct(c.precision).padStart(7)}  ${pct(c.recall).padStart(7)}`,
    );
  }
  for (const [name, corpus, scanner] of [
    ["Prompt injection", injectionItems, scanners.prompt_injection],
    ["Toxicity", toxicityItems, scanners.toxicity],
  ] as const) {
    const d = scoreDocuments(corpus, scanner);
    console.log(
      `\n${name}: precision ${pct(d.all.precision)}, recall ${pct(d.all.recall)}, false positives ${pct(d.fpr)} of negatives (TP ${d.all.tp}, FP ${d.all.fp}, FN ${d.all.fn})`,
    );
    for (const [cat, c] of Object.entries(d.byCategory)) {
      console.log(
        `  ${cat.padEnd(40)} ${String(c.flagged).padStart(4)}/${String(c.n).padEnd(4)} ${c.label ? "recall" : "flagged"} ${pct(c.rate)}`,
      );
    }
  }
  const prompts = {
    "1 KB benign prompt": onePromptOf(benign),
    "1 KB jailbreak": onePromptOf(injectionItems.filter((i) => i.label)),
    // The first positives of the PII corpus are phone numbers, most after a benign question.
    "1 KB phone numbers": onePromptOf(piiItems.filter((i) => i.label).slice(1)),
    "1 KB mixed PII": mixedPiiPrompt(piiItems),
  };
  // bench/guard-datasets, leave-one-source-out: every figure on a source family the model never saw.
  guardLosoReport();

  const benignKb = onePromptOf(benign);
  console.log("\nLatency per scanner on the 1 KB benign prompt (µs):");
  for (const [name, run] of [
    ["pii", () => scanners.pii.scan(benignKb, { action: "block" })],
    ["prompt injection patterns", () => promptInjectionScanner.scan(benignKb, { action: "block" })],
    ["prompt injection classifier", () => classifierScores.prompt_injection(benignKb)],
    ["toxicity patterns", () => toxicityScanner.scan(benignKb, { action: "block" })],
    ["toxicity classifier", () => classifierScores.toxicity(benignKb)],
  ] as const) {
    const { p50, p99 } = latency(run);
    console.log(`  ${name.padEnd(30)} p50 ${p50.toFixed(1).padStart(6)}  p99 ${p99.toFixed(1).padStart(6)}`);
  }

  console.log("\nLatency, all three scanners on one text (µs), and the PII found in it:");
  for (const [name, text] of Object.entries(prompts)) {
    const { p50, p99 } = latency(() => scanAll(text));
    const found = new Map<string, number>();
    for (const f of scanners.pii.scan(text, { action: "redact" }))
      found.set(f.type, (found.get(f.type) ?? 0) + 1);
    const pii = [...found].map(([type, n]) => `${n} ${type}`).join(", ") || "none";
    console.log(
      `  ${name.padEnd(20)} p50 ${p50.toFixed(1).padStart(6)}  p99 ${p99.toFixed(1).padStart(6)}   PII: ${pii}`,
    );
  }
}
