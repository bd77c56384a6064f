// Indirect injection on data-role text (bench/guard-datasets/indirect.jsonl.gz), leave-one-source-out:
// for every source, the threshold is chosen on all the other sources (the highest recall whose
// false-positive rate there stays <= 2 %) and then measured on the held-out source alone. The
// scanner's patterns are hand-written, not trained; the threshold is the only thing fitted.
// The blind sources (indirect-blind.jsonl.gz, read after the scanner was written) are printed apart.
//   bun bench/guardrails-indirect.ts        (or from `bun run bench guardrails`: indirectLoso())

import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  indirectInjectionScanner,
  indirectInjectionScore,
} from "../services/guardrails/scanners/indirect-injection/index.ts";
import { type IndirectItem, loadIndirect } from "./guard-datasets/load.ts";

export interface IndirectSourceRow {
  source: string;
  positives: number;
  negatives: number;
  threshold: number;
  recall: number | null;
  falsePositiveRate: number | null;
  /** At the scanner's default threshold (nothing fitted at all). */
  atDefault: { recall: number | null; falsePositiveRate: number | null };
}

const GRID = [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8];
const MAX_FPR = 0.02;

interface Scored {
  item: IndirectItem;
  score: number;
}

interface Counts {
  tp: number;
  p: number;
  fp: number;
  n: number;
}

/** Each item flagged when its score reaches its own threshold. */
function count(scored: readonly (Scored & { threshold: number })[]): Counts {
  const c: Counts = { tp: 0, p: 0, fp: 0, n: 0 };
  for (const { item, score, threshold } of scored) {
    if (item.label) {
      c.p++;
      if (score >= threshold) c.tp++;
    } else {
      c.n++;
      if (score >= threshold) c.fp++;
    }
  }
  return c;
}

function rates(scored: readonly Scored[], threshold: number): { recall: number | null; fpr: number | null } {
  const c = count(scored.map((s) => ({ ...s, threshold })));
  return { recall: c.p ? c.tp / c.p : null, fpr: c.n ? c.fp / c.n : null };
}

/** The lowest threshold of the grid whose false-positive rate on `train` is at most 2 %. */
function tune(train: readonly Scored[]): number {
  for (const t of GRID) if ((rates(train, t).fpr ?? 0) <= MAX_FPR) return t;
  return GRID[GRID.length - 1] ?? 0.5;
}

export function indirectLoso(): {
  rows: IndirectSourceRow[];
  overall: { recall: number; falsePositiveRate: number };
} {
  const scored = loadIndirect().map((item) => ({ item, score: indirectInjectionScore(item.text) }));
  const sources = [...new Set(scored.map((s) => s.item.source))].sort();
  const rows: IndirectSourceRow[] = [];
  // Every item with the threshold chosen without its source, for the pooled figures.
  const pooled: (Scored & { threshold: number })[] = [];
  for (const source of sources) {
    const held = scored.filter((s) => s.item.source === source);
    const threshold = tune(scored.filter((s) => s.item.source !== source));
    const r = rates(held, threshold);
    for (const s of held) pooled.push({ ...s, threshold });
    rows.push({
      source,
      positives: held.filter((s) => s.item.label).length,
      negatives: held.filter((s) => !s.item.label).length,
      threshold,
      recall: r.recall,
      falsePositiveRate: r.fpr,
      atDefault: (({ recall, fpr }) => ({ recall, falsePositiveRate: fpr }))(
        rates(held, indirectInjectionScanner.defaultThreshold),
      ),
    });
  }
  const { tp, p, fp, n } = count(pooled);
  return { rows, overall: { recall: tp / p, falsePositiveRate: fp / n } };
}

const pct = (x: number | null) => (x === null ? "—" : `${(x * 100).toFixed(1)} %`);

export function printIndirectLoso(): void {
  const { rows, overall } = indirectLoso();
  const scored = loadIndirect().map((item) => ({ item, score: indirectInjectionScore(item.text) }));
  const atDefault = rates(scored, indirectInjectionScanner.defaultThreshold);
  console.log("\nindirect injection, data role, leave-one-source-out (threshold tuned on the other sources)");
  console.log(
    `| held-out source | positives | negatives | threshold | recall | false positives | recall / FP at ${indirectInjectionScanner.defaultThreshold} (default) |`,
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|");
  for (const r of rows)
    console.log(
      `| ${r.source} | ${r.positives} | ${r.negatives} | ${r.threshold} | ${pct(r.recall)} | ${pct(r.falsePositiveRate)} | ${pct(r.atDefault.recall)} / ${pct(r.atDefault.falsePositiveRate)} |`,
    );
  console.log(
    `| **all (pooled)** | | | | **${pct(overall.recall)}** | **${pct(overall.falsePositiveRate)}** | ${pct(atDefault.recall)} / ${pct(atDefault.fpr)} |`,
  );
}

// ---- the blind check: sources read only after the scanner was fixed (indirect-blind.jsonl.gz) ----
// Measured at the threshold the whole of indirect.jsonl.gz chooses (the same rule as above: the
// lowest of the grid with false positives <= 2 % there), and at the scanner's default.

export function loadIndirectBlind(): IndirectItem[] {
  const bytes = readFileSync(join(import.meta.dir, "guard-datasets/indirect-blind.jsonl.gz"));
  return new TextDecoder()
    .decode(Bun.gunzipSync(bytes))
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as IndirectItem);
}

export interface BlindRow {
  source: string;
  positives: number;
  negatives: number;
  recall: number | null;
  falsePositiveRate: number | null;
  atDefault: { recall: number | null; falsePositiveRate: number | null };
}

export function indirectBlind(): { threshold: number; rows: BlindRow[] } {
  const threshold = tune(loadIndirect().map((item) => ({ item, score: indirectInjectionScore(item.text) })));
  const scored = loadIndirectBlind().map((item) => ({ item, score: indirectInjectionScore(item.text) }));
  const families = [...new Set(scored.map((s) => s.item.source.split(":").slice(0, 2).join(":")))].sort();
  const rows: BlindRow[] = [];
  for (const family of [...families, "all blind"]) {
    const held =
      family === "all blind" ? scored : scored.filter((s) => s.item.source.startsWith(`${family}:`));
    const r = rates(held, threshold);
    const d = rates(held, indirectInjectionScanner.defaultThreshold);
    rows.push({
      source: family,
      positives: held.filter((s) => s.item.label).length,
      negatives: held.filter((s) => !s.item.label).length,
      recall: r.recall,
      falsePositiveRate: r.fpr,
      atDefault: { recall: d.recall, falsePositiveRate: d.fpr },
    });
  }
  return { threshold, rows };
}

export function printIndirectBlind(): void {
  const { threshold, rows } = indirectBlind();
  console.log(
    `\nindirect injection, blind sources (indirect-blind.jsonl.gz), threshold ${threshold} chosen on indirect.jsonl.gz`,
  );
  console.log(
    `| blind source | positives | negatives | recall | false positives | recall / FP at ${indirectInjectionScanner.defaultThreshold} (default) |`,
  );
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const r of rows)
    console.log(
      `| ${r.source} | ${r.positives} | ${r.negatives} | ${pct(r.recall)} | ${pct(r.falsePositiveRate)} | ${pct(r.atDefault.recall)} / ${pct(r.atDefault.falsePositiveRate)} |`,
    );
}

if (import.meta.main) {
  printIndirectLoso();
  printIndirectBlind();
}
