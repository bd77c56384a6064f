// The indirect-injection blind check (bench/guard-datasets/indirect-blind.jsonl.gz) is only blind if
// none of its texts is one the patterns were written from: no text of indirect.jsonl.gz (letters and
// digits compared, case folded, as the builder compares them), and every source apart from them.
import { expect, test } from "bun:test";
import { loadIndirect } from "#bench/guard-datasets/load.ts";
import { loadIndirectBlind } from "../../bench/guardrails-indirect.ts";

const key = (t: string) => t.toLowerCase().replace(/[^a-z0-9]+/g, "");

test("the blind set shares no text and no source with indirect.jsonl.gz, and has both labels", () => {
  const blind = loadIndirectBlind();
  const known = loadIndirect();
  const seen = new Set(known.map((i) => key(i.text)));
  expect(blind.filter((i) => seen.has(key(i.text)))).toEqual([]);
  const knownSources = new Set(known.map((i) => i.source));
  expect(blind.every((i) => i.source.startsWith("blind:") && !knownSources.has(i.source))).toBe(true);
  expect(blind.some((i) => i.label)).toBe(true);
  expect(blind.some((i) => !i.label)).toBe(true);
});
