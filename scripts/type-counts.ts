// The type-hygiene counts of issue #37, read with the TypeScript parser rather than grep (a grep also
// counts "as" in comments and strings): `as` casts other than `as const` (AsExpression and <T>x), and
// `Record<string, unknown>` type references, in every tracked .ts/.tsx file outside tests/.
// Usage: bun scripts/type-counts.ts [--files]
import { readFileSync } from "node:fs";
import ts from "typescript";

const files = Bun.spawnSync(["git", "ls-files", "*.ts", "*.tsx"])
  .stdout.toString()
  .split("\n")
  .filter((f) => f !== "" && !f.startsWith("tests/"));

interface Counts {
  casts: number;
  records: number;
}

function countFile(path: string): Counts {
  const kind = path.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true, kind);
  const counts: Counts = { casts: 0, records: 0 };
  const isConst = (type: ts.TypeNode) =>
    ts.isTypeReferenceNode(type) && type.typeName.getText(source) === "const";
  const visit = (node: ts.Node) => {
    if ((ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) && !isConst(node.type))
      counts.casts++;
    if (
      ts.isTypeReferenceNode(node) &&
      node.getText(source).replace(/\s+/g, " ") === "Record<string, unknown>"
    )
      counts.records++;
    ts.forEachChild(node, visit);
  };
  visit(source);
  return counts;
}

const total: Counts = { casts: 0, records: 0 };
const perFile: [string, Counts][] = [];
for (const path of files) {
  const counts = countFile(path);
  total.casts += counts.casts;
  total.records += counts.records;
  if (counts.casts + counts.records > 0) perFile.push([path, counts]);
}
console.log(`${files.length} files: ${total.casts} as casts, ${total.records} Record<string, unknown>`);
if (process.argv.includes("--files")) {
  perFile.sort((a, b) => b[1].casts + b[1].records - a[1].casts - a[1].records);
  for (const [path, c] of perFile.slice(0, process.argv.includes("--all") ? undefined : 40))
    console.log(`${c.casts}\t${c.records}\t${path}`);
}
