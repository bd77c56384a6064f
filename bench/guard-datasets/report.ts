// The leave-one-source-out section of `bun run bench guardrails`: per scanner (patterns and classifier
// together, as the scanner runs) and per source, the share flagged by a model that never saw the
// source's family; pooled precision, recall and false-positive rate; and, labelled as such beside
// it, the same-source split (train on split "train", measure split "heldout" of the same sources).

import type { Scanner } from "#services/guardrails/scanner.ts";
import { promptInjectionScanner } from "#services/guardrails/scanners/prompt-injection/index.ts";
import { toxicityScanner } from "#services/guardrails/scanners/toxicity/index.ts";
import { type DatasetItem, examplesFor } from "./load.ts";
import { type LosoResult, leaveOneSourceOut, type Pooled, pooledOf, type SourceRow } from "./loso.ts";
import { MODEL_OPTIONS, scoreItem, train } from "./train.ts";

export type GuardClassifier = "prompt_injection" | "toxicity";

const patternsOf: Record<GuardClassifier, Scanner> = {
  prompt_injection: promptInjectionScanner,
  toxicity: toxicityScanner,
};

/** What the scanner does with a fold's model: a finding of the patterns or of the classifier. */
function scannerFlags(id: GuardClassifier): {
  flagged: (model: ReturnType<typeof train>, item: DatasetItem) => boolean;
  byPatterns: (item: DatasetItem) => boolean;
} {
  // The patterns do not depend on the fold: run once per text.
  const cache = new WeakMap<DatasetItem, boolean>();
  const byPatterns = (item: DatasetItem) => {
    let hit = cache.get(item);
    if (hit === undefined) {
      hit = patternsOf[id].scan(item.text, { action: "block" }).length > 0;
      cache.set(item, hit);
    }
    return hit;
  };
  return {
    byPatterns,
    flagged: (model, item) => byPatterns(item) || scoreItem(model, item) >= model.threshold,
  };
}

export interface ScannerLoso {
  loso: LosoResult;
  /** Per source: the share the patterns alone flag (no model involved). */
  patterns: Map<string, number>;
  sameSource: Pooled;
}

/** Leave-one-source-out and the same-source split of one scanner. Fold models skip the refit. */
export function measureScanner(id: GuardClassifier, onFold?: (family: string) => void): ScannerLoso {
  const items = examplesFor(id);
  const { flagged, byPatterns } = scannerFlags(id);
  const fold = (trainItems: readonly DatasetItem[]) =>
    train(trainItems, { ...MODEL_OPTIONS[id], refit: false });
  const loso = leaveOneSourceOut(items, fold, flagged, { onFold });
  const patterns = new Map<string, number>();
  for (const row of loso.rows) {
    const of = items.filter((i) => i.source === row.source && i.label === row.label);
    patterns.set(`${row.source}:${row.label}`, of.filter(byPatterns).length / of.length);
  }
  const sameModel = fold(items.filter((i) => i.split === "train"));
  const heldout = items.filter((i) => i.split === "heldout");
  const sameRows: SourceRow[] = [true, false].map((label) => {
    const of = heldout.filter((i) => i.label === label);
    return {
      family: "",
      source: "",
      label,
      texts: of.length,
      flagged: of.filter((i) => flagged(sameModel, i)).length,
    };
  });
  return { loso, patterns, sameSource: pooledOf(sameRows) };
}

const f3 = (x: number) => x.toFixed(3);

export function printScanner(name: string, m: ScannerLoso): void {
  console.log(`\n${name}, leave-one-source-out (patterns + classifier; each family held out in turn):`);
  console.log(`  ${"family".padEnd(24)} ${"source".padEnd(38)}  texts  patterns  scanner`);
  for (const r of m.loso.rows) {
    const rate = r.flagged / r.texts;
    const what = r.label ? "recall" : "FPR";
    console.log(
      `${r.label ? "+" : "-"} ${r.family.padEnd(24)} ${r.source.padEnd(38)} ${String(r.texts).padStart(6)}  ${f3(m.patterns.get(`${r.source}:${r.label}`) ?? 0).padStart(8)}  ${f3(rate).padStart(7)} ${what}`,
    );
  }
  const p = m.loso.pooled;
  console.log(
    `  pooled, leave-one-source-out: precision ${f3(p.precision)}  recall ${f3(p.recall)}  FPR ${f3(p.fpr)}  (TP ${p.tp}, FP ${p.fp}, FN ${p.fn}, TN ${p.tn})`,
  );
  const s = m.sameSource;
  console.log(
    `  beside it, SAME-SOURCE split (not a measure of generalization): precision ${f3(s.precision)}  recall ${f3(s.recall)}  FPR ${f3(s.fpr)}`,
  );
}

function measureAndPrint(id: GuardClassifier, name: string): ScannerLoso {
  const started = performance.now();
  const m = measureScanner(id, (family) => process.stderr.write(`  ${id}: holding out ${family}\n`));
  printScanner(name, m);
  console.log(`  (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  return m;
}

export function guardLosoReport(): Record<GuardClassifier, ScannerLoso> {
  return {
    prompt_injection: measureAndPrint("prompt_injection", "Prompt injection"),
    toxicity: measureAndPrint("toxicity", "Toxicity"),
  };
}
