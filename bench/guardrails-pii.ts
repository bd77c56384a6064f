// PII recall and precision per type on texts from public sources the detectors were never built
// against (bench/guard-datasets/pii-heldout.jsonl.gz, sources in its README). A labelled span is found
// when a finding of its type overlaps it; a finding is correct when it overlaps a labelled span of its
// type (a phone read inside an IBAN counts against phones); a source that labels only some types
// (gitleaks' secret examples) scores only findings of those. "dev" sources were read while tuning the
// detectors; the "heldout" figures come from sources nobody looked at while tuning.
//   bun run bench guardrails-pii [--by-source] [--misses TYPE]
import { parseArgs } from "node:util";
import type { Finding, Scanner } from "#services/guardrails/scanner.ts";
import { piiScanner } from "#services/guardrails/scanners/pii/index.ts";
import { loadPiiBench, type PiiBenchItem, type PiiBenchSpan } from "./guard-datasets/pii-load.ts";

export interface PiiTypeScore {
  type: string;
  spans: number;
  found: number;
  findings: number;
  correct: number;
  recall: number;
  precision: number;
}

interface Tally {
  spans: number;
  found: number;
  findings: number;
  correct: number;
}

const overlaps = (a: { start: number; end: number }, b: { start: number; end: number }) =>
  a.start < b.end && b.start < a.end;

function tallyItem(item: PiiBenchItem, findings: Finding[], tallies: Map<string, Tally>): void {
  const get = (type: string) => {
    let t = tallies.get(type);
    if (!t) {
      t = { spans: 0, found: 0, findings: 0, correct: 0 };
      tallies.set(type, t);
    }
    return t;
  };
  for (const span of item.spans) {
    const t = get(span.type);
    t.spans++;
    if (findings.some((f) => f.type === span.type && overlaps(f, span))) t.found++;
  }
  for (const f of findings) {
    if (item.labels && !item.labels.some((t) => t === f.type)) continue;
    const t = get(f.type);
    t.findings++;
    if (item.spans.some((s: PiiBenchSpan) => s.type === f.type && overlaps(f, s))) t.correct++;
  }
}

/** Per-type recall and precision of the PII scanner over the given items (redact, default threshold). */
export function scorePiiBench(items: readonly PiiBenchItem[], scanner: Scanner = piiScanner): PiiTypeScore[] {
  const tallies = new Map<string, Tally>();
  for (const item of items) tallyItem(item, scanner.scan(item.text, { action: "redact" }), tallies);
  return [...tallies]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([type, t]) => ({
      type,
      ...t,
      recall: t.spans === 0 ? Number.NaN : t.found / t.spans,
      precision: t.findings === 0 ? Number.NaN : t.correct / t.findings,
    }));
}

const fmt = (x: number) => (Number.isNaN(x) ? "    -" : x.toFixed(3));

export function printPiiTable(title: string, scores: readonly PiiTypeScore[]): void {
  console.log(`\n${title}`);
  console.log("| type | spans | recall | findings | precision |\n|---|---:|---:|---:|---:|");
  for (const s of scores)
    console.log(`| ${s.type} | ${s.spans} | ${fmt(s.recall)} | ${s.findings} | ${fmt(s.precision)} |`);
}

function printMisses(items: readonly PiiBenchItem[], type: string): void {
  for (const item of items) {
    const findings = piiScanner.scan(item.text, { action: "redact" });
    for (const span of item.spans.filter((s) => s.type === type))
      if (!findings.some((f) => f.type === type && overlaps(f, span)))
        console.log(`miss ${item.source}: ${JSON.stringify(item.text.slice(span.start, span.end))}`);
    if (item.labels && !item.labels.some((t) => t === type)) continue;
    for (const f of findings.filter((f) => f.type === type))
      if (!item.spans.some((s) => s.type === type && overlaps(f, s)))
        console.log(
          `false ${item.source}: ${JSON.stringify(item.text.slice(f.start, f.end))} in ${JSON.stringify(item.text.slice(Math.max(0, f.start - 40), f.end + 40))}`,
        );
  }
}

if (import.meta.main) main();
function main() {
  const { values } = parseArgs({
    options: {
      "by-source": { type: "boolean", default: false },
      misses: { type: "string" },
      split: { type: "string", default: "dev" },
    },
  });
  const items = loadPiiBench();
  if (values.misses) {
    // Misses are printed for the dev split only unless asked: the held-out texts are not for tuning.
    printMisses(
      items.filter((i) => i.split === values.split),
      values.misses,
    );
    return;
  }
  for (const split of ["dev", "heldout"] as const) {
    const part = items.filter((i) => i.split === split);
    printPiiTable(
      `${split}: ${part.length} texts, ${part.filter((i) => i.spans.length === 0).length} without PII`,
      scorePiiBench(part),
    );
    if (!values["by-source"]) continue;
    for (const source of [...new Set(part.map((i) => i.source.replace(/:negative$/, "")))].sort())
      printPiiTable(`  ${split} ${source}`, scorePiiBench(part.filter((i) => i.source.startsWith(source))));
  }
}
