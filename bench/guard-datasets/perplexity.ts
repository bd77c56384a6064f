// `bun bench/guardrails.ts perplexity`: what a perplexity filter against adversarial suffixes would
// add to the prompt-injection scanner, leave-one-source-out. For every source family held out, the
// classifier (train.ts) and a character language model of benign text (train-lm.ts, char-lm.ts) are
// trained on the other families; a text counts as flagged when the patterns, the classifier or the
// filter flag it. The filter's threshold is chosen on the training families' benign validation
// fifth for each false-positive target below, never on the held-out family.
import { promptInjectionScanner } from "#services/guardrails/scanners/prompt-injection/index.ts";
import { gibberishScore } from "./char-lm.ts";
import { type DatasetItem, examplesFor } from "./load.ts";
import { familyOf, pooledOf, type SourceRow } from "./loso.ts";
import { MODEL_OPTIONS, scoreItem, train } from "./train.ts";
import { lmThreshold, trainCharLm } from "./train-lm.ts";

/** The filter's false-positive targets on the training families' benign validation texts. */
const TARGETS = [0.001, 0.002, 0.005] as const;

interface Counts {
  rows: Map<string, SourceRow>;
  /** Per target: the rows when the filter joins the scanner. */
  withFilter: Map<string, SourceRow>[];
}

function bump(rows: Map<string, SourceRow>, item: DatasetItem, flagged: boolean): void {
  const key = `${item.source}\u0000${item.label}`;
  const row = rows.get(key) ?? {
    family: familyOf(item.source),
    source: item.source,
    label: item.label,
    texts: 0,
    flagged: 0,
  };
  row.texts++;
  if (flagged) row.flagged++;
  rows.set(key, row);
}

function measure(): Counts {
  const items = examplesFor("prompt_injection");
  const counts: Counts = { rows: new Map(), withFilter: TARGETS.map(() => new Map()) };
  const families = [...new Set(items.map((i) => familyOf(i.source)))].sort();
  for (const held of families) {
    process.stderr.write(`  perplexity: holding out ${held}\n`);
    const rest = items.filter((i) => familyOf(i.source) !== held);
    const classifier = train(rest, { ...MODEL_OPTIONS.prompt_injection, refit: false });
    const lm = trainCharLm(rest);
    const thresholds = TARGETS.map((targetFpr) => lmThreshold(lm, rest, targetFpr));
    for (const item of items) {
      if (familyOf(item.source) !== held) continue;
      const scanner =
        promptInjectionScanner.scan(item.text, { action: "block" }).length > 0 ||
        scoreItem(classifier, item) >= classifier.threshold;
      bump(counts.rows, item, scanner);
      const score = gibberishScore(lm, item.text);
      counts.withFilter.forEach((rows, t) => {
        bump(rows, item, scanner || score >= (thresholds[t] ?? Number.POSITIVE_INFINITY));
      });
    }
  }
  return counts;
}

const f3 = (x: number) => x.toFixed(3);

export function printPerplexityLoso(): void {
  const started = performance.now();
  const { rows, withFilter } = measure();
  console.log("\nPrompt injection + perplexity filter, leave-one-source-out (share flagged per source):");
  console.log(
    `  ${"source".padEnd(42)} texts  scanner  ${TARGETS.map((t) => `+filter@${t}`.padStart(14)).join("")}`,
  );
  for (const [key, row] of rows) {
    const rates = withFilter.map((m) => f3((m.get(key)?.flagged ?? 0) / row.texts).padStart(14));
    console.log(
      `${row.label ? "+" : "-"} ${row.source.padEnd(42)} ${String(row.texts).padStart(5)}  ${f3(row.flagged / row.texts).padStart(7)}  ${rates.join("")}`,
    );
  }
  const pooled: [string, Map<string, SourceRow>][] = [
    ["scanner", rows],
    ...withFilter.map((m, t): [string, Map<string, SourceRow>] => [`+filter@${TARGETS[t]}`, m]),
  ];
  for (const [name, m] of pooled) {
    const p = pooledOf([...m.values()]);
    console.log(
      `  pooled ${name.padEnd(16)} precision ${f3(p.precision)}  recall ${f3(p.recall)}  FPR ${f3(p.fpr)}  (TP ${p.tp}, FP ${p.fp}, FN ${p.fn}, TN ${p.tn})`,
    );
  }
  console.log(`  (${((performance.now() - started) / 1000).toFixed(0)} s)`);
}
