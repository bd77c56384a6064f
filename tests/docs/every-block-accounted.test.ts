// Every block of commands in README.md and docs/ is either run by a test (marked readme-workflow,
// docs-workflow or docs-run) or marked not-run with the reason, so that no command goes stale unseen;
// tests/docs/blocks.ts says how blocks are marked.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { allBlocks, type Block, blocksOf, isCommandBlock, scriptOf } from "./blocks.ts";

const where = (b: Block) => `${b.file}:${b.line}`;
const blocks = allBlocks();

test("README.md and every file under docs/ are read, new ones included", () => {
  const files = new Set(blocks.map((b) => b.file));
  for (const file of ["README.md", "docs/providers.md", "docs/operations.md", "docs/security.md"])
    expect(files.has(file)).toBe(true);
});

test("every block of commands is run by a test or says why not", () => {
  const unmarked = blocks.filter((b) => isCommandBlock(b) && b.marker.kind === "none").map(where);
  expect(unmarked).toEqual([]);
  const noReason = blocks
    .filter((b) => b.marker.kind === "not-run" && b.marker.reason.trim().length < 12)
    .map(where);
  expect(noReason).toEqual([]);
});

test("every workflow marker is named by a test in tests/docs", () => {
  const sources = readdirSync(import.meta.dir)
    .filter((f) => f.endsWith(".test.ts") && f !== "every-block-accounted.test.ts")
    .map((f) => readFileSync(join(import.meta.dir, f), "utf8"))
    .join("\n");
  const orphans = blocks
    .flatMap((b) => (b.marker.kind === "workflow" ? [{ at: where(b), name: b.marker.name }] : []))
    .filter(({ name }) => !sources.includes(`"${name}"`));
  expect(orphans).toEqual([]);
});

test("a transcript runs its $ commands, continued until they parse, and skips the output", () => {
  const block: Block = {
    file: "x.md",
    line: 1,
    lang: "console",
    marker: { kind: "run" },
    body: [
      "$ curl -s $F/a -H 'x: y' \\",
      '    -d \'{"a":',
      "       1}'",
      '{"answer":1}',
      "$ echo done",
      "done",
    ].join("\n"),
  };
  expect(scriptOf(block)).toBe("curl -s $F/a -H 'x: y' \\\n    -d '{\"a\":\n       1}'\necho done");
  const plain = blocksOf("README.md").find((b) => b.marker.kind === "workflow");
  expect(plain && scriptOf(plain)).toBe(plain?.body);
});
