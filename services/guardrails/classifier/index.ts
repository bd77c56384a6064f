// The trained classifiers beside the pattern scanners: prompt injection and toxicity each get a
// logistic-regression model over hashed n-grams (features.ts, model.ts), trained on public datasets
// by scripts/train-guard-classifier.ts. A finding of either the patterns or the classifier counts.
// The classifier's finding spans the whole text (it judges the text, not a phrase), has type
// "classifier" and its probability as score; its threshold is the policy's `classifier_threshold`,
// by default the one stored in the model (chosen at training for at most 0.1 % (injection) or 0.5 %
// (toxicity) false positives on a validation fifth of the training texts; on sources never seen it
// flags more: docs/guardrails-evaluation.md). `classifier_threshold: 1` turns the classifier off.
import { join } from "node:path";
import type { Finding, Scanner, ScannerConfig } from "../scanner.ts";
import { type LinearModel, loadModel, scorersFor } from "./model.ts";

export const promptInjectionModel = loadModel(join(import.meta.dir, "prompt-injection.bin"));
export const toxicityModel = loadModel(join(import.meta.dir, "toxicity.bin"));
// Both models score a text in one pass over its n-grams (model.ts scorersFor).
const [promptInjectionScore, toxicityScore] = scorersFor([promptInjectionModel, toxicityModel]) as [
  (text: string) => number,
  (text: string) => number,
];
const scorers = new Map<LinearModel, (text: string) => number>([
  [promptInjectionModel, promptInjectionScore],
  [toxicityModel, toxicityScore],
]);

export function withClassifier(patterns: Scanner, model: LinearModel): Scanner {
  const score = scorers.get(model) ?? (scorersFor([model])[0] as (text: string) => number);
  return {
    id: patterns.id,
    defaultThreshold: patterns.defaultThreshold,
    scan(text: string, config: ScannerConfig): Finding[] {
      const found = patterns.scan(text, config);
      if (config.action === "off" || text.length === 0) return found;
      const threshold = config.classifier_threshold ?? model.threshold;
      if (threshold >= 1) return found;
      const p = score(text);
      if (p < threshold) return found;
      found.push({ scanner: patterns.id, type: "classifier", score: p, start: 0, end: text.length });
      return found;
    },
  };
}

/** The classifier's probability alone (for the bench and the held-out tests). */
export const classifierScores = {
  prompt_injection: promptInjectionScore,
  toxicity: toxicityScore,
};
