// The function-length count of issue #37: every function (declaration, expression, arrow, method,
// accessor, constructor) in a tracked .ts/.tsx file outside tests/ whose text spans more than the limit
// in lines (100 unless given), longest first. "Production" is everything but bench/, scripts/, stubs/ and
// dev/, which the "no production function over 100 lines" is about.
// Usage: bun scripts/long-functions.ts [--limit N] [--all]
import { readFileSync } from "node:fs";
import ts from "typescript";

const limitAt = process.argv.indexOf("--limit");
const limit = limitAt > 0 ? Number(process.argv[limitAt + 1]) : 100;
const toolFolders = ["bench/", "scripts/", "stubs/", "dev/"];
const files = Bun.spawnSync(["git", "ls-files", "*.ts", "*.tsx"])
  .stdout.toString()
  .split("\n")
  .filter((f) => f !== "" && !f.startsWith("tests/"))
  .filter((f) => process.argv.includes("--all") || !toolFolders.some((d) => f.startsWith(d)));

/** A function, method, accessor or constructor written with a body (not a signature). */
function hasBody(node: ts.Node): node is ts.FunctionLikeDeclaration {
  const declared =
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node);
  return declared && node.body !== undefined;
}

function functionName(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText(source);
  return "(anonymous)";
}

const long: { lines: number; where: string; name: string }[] = [];
for (const path of files) {
  const kind = path.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true, kind);
  const visit = (node: ts.Node) => {
    if (hasBody(node)) {
      const fn = node;
      const start = source.getLineAndCharacterOfPosition(fn.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(fn.getEnd()).line;
      const lines = end - start + 1;
      if (lines > limit) long.push({ lines, where: `${path}:${start + 1}`, name: functionName(fn, source) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
long.sort((a, b) => b.lines - a.lines);
console.log(`${files.length} files: ${long.length} functions over ${limit} lines`);
for (const f of long) console.log(`${f.lines}\t${f.name}\t${f.where}`);
