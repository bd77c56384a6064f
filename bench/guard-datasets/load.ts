// The labelled texts of the guard classifiers (see README.md beside this file), gzipped JSON lines.
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface DatasetItem {
  text: string;
  label: boolean;
  /** `<dataset>:<part>`, as README.md lists them. */
  source: string;
  /** "heldout" items never enter training; the split is fixed by a hash of the text. */
  split: "train" | "heldout";
}

export type DatasetName =
  | "benign"
  | "injection"
  | "toxicity"
  | "extra-benign"
  | "extra-injection"
  | "extra-toxicity";

export function loadDataset(name: DatasetName): DatasetItem[] {
  const bytes = readFileSync(join(import.meta.dir, `${name}.jsonl.gz`));
  return new TextDecoder()
    .decode(Bun.gunzipSync(bytes))
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as DatasetItem);
}

/**
 * A classifier's examples: its own files (positives, and for toxicity more negatives) and the benign
 * ones, of both rounds of sources (README.md).
 */
export function examplesFor(classifier: "prompt_injection" | "toxicity"): DatasetItem[] {
  const own = classifier === "prompt_injection" ? "injection" : "toxicity";
  return [
    ...loadDataset(own),
    ...loadDataset(`extra-${own}`),
    ...loadDataset("benign"),
    ...loadDataset("extra-benign"),
  ];
}

/** An item of indirect.jsonl.gz: text read as data (a tool's output, a document), labelled by whether it plants an instruction for the assistant. */
export interface IndirectItem {
  text: string;
  label: boolean;
  source: string;
  role: "data";
}

export function loadIndirect(): IndirectItem[] {
  const bytes = readFileSync(join(import.meta.dir, "indirect.jsonl.gz"));
  return new TextDecoder()
    .decode(Bun.gunzipSync(bytes))
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as IndirectItem);
}
