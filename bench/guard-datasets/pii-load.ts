// The PII benchmark built from public sources (scripts/build-pii-heldout.ts; sources in README.md
// beside this file): gzipped JSON lines, one text a line with its labelled PII spans.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { PiiType } from "#services/guardrails/scanners/pii/types.ts";

export type PiiBenchType = PiiType;

export interface PiiBenchSpan {
  type: PiiBenchType;
  start: number;
  end: number;
}

export interface PiiBenchItem {
  text: string;
  /** Empty: a negative (look-alikes such as versions, dates, hashes, rejected payloads). */
  spans: PiiBenchSpan[];
  /** `<repository>:<part>`, as README.md lists them. */
  source: string;
  /** "dev" sources may be read while tuning the detectors; "heldout" sources only measured. */
  split: "dev" | "heldout";
  /**
   * The types the source labels, when it labels only some: a finding of another type in this text is
   * neither right nor wrong (gitleaks' examples label secrets, not the loopback address in a curl
   * line beside one). Absent: every type is labelled, so any other finding is a false one.
   */
  labels?: PiiBenchType[];
}

export function loadPiiBench(): PiiBenchItem[] {
  const bytes = readFileSync(join(import.meta.dir, "pii-heldout.jsonl.gz"));
  return new TextDecoder()
    .decode(Bun.gunzipSync(bytes))
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as PiiBenchItem);
}
