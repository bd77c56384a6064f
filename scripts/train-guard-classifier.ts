// Trains the two guard classifiers (prompt injection, toxicity) from bench/guard-datasets and writes
// services/guardrails/classifier/{prompt-injection,toxicity}.bin. Deterministic: the same data gives
// the same bytes.
//
// The training itself is bench/guard-datasets/train.ts, shared with the leave-one-source-out bench
// (bench/guardrails.ts), so the figures it prints are of models made the way these are. The shipped
// models learn from every item of every source (both splits): how well that generalizes is what the
// leave-one-source-out figures measure, not a split of the same sources.
// Run: bun scripts/train-guard-classifier.ts
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { examplesFor } from "#bench/guard-datasets/load.ts";
import { MODEL_OPTIONS, train } from "#bench/guard-datasets/train.ts";
import { encodeModel } from "#services/guardrails/classifier/model.ts";

function build(classifier: "prompt_injection" | "toxicity", file: string): void {
  const items = examplesFor(classifier);
  const model = train(items, MODEL_OPTIONS[classifier]);
  writeFileSync(join(import.meta.dir, "../services/guardrails/classifier", file), encodeModel(model));
  console.log(`${classifier}: ${items.length} texts, threshold ${model.threshold.toFixed(3)}`);
}

if (import.meta.main) {
  build("prompt_injection", "prompt-injection.bin");
  build("toxicity", "toxicity.bin");
}
