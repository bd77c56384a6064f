// Moves files (or whole folders) and rewrites every import specifier in the tree that named them, so a
// branch that still imports the old paths can be merged and fixed by running the same move again.
//
//   bun scripts/codemods/move-files.ts scripts/codemods/moves/<step>.json [--dry-run]
//
// A move file is a JSON object, old path -> new path (repository-relative; a folder moves with all its
// files). The run is idempotent: a move already made is not made again (its source is gone, its
// destination is there), and a specifier already right is left as it is. What it rewrites: static
// `import`/`export ... from`, `import("...")`, `mock.module("...")` and `declare module "..."`, in
// every tracked or untracked-not-ignored .ts/.tsx file; a `#folder/...` specifier stays in that form,
// a relative one stays relative (or becomes `#folder/...` when it now crosses into another top folder). The
// repository-relative paths that comments, strings and Markdown files name are replaced as text
// (README.md is left to its owner).
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

const root = join(import.meta.dir, "../..");
const args = process.argv.slice(2);
const dryRun = args.includes("--dry-run");
const mapFiles = args.filter((a) => !a.startsWith("--"));
if (mapFiles.length === 0) {
  console.error("usage: bun scripts/codemods/move-files.ts <moves.json>... [--dry-run]");
  process.exit(2);
}

function git(...argv: string[]): string {
  const run = Bun.spawnSync(["git", ...argv], { cwd: root, stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`git ${argv.join(" ")}: ${run.stderr.toString()}`);
  return run.stdout.toString();
}

const trackedFiles = (under?: string): string[] =>
  git("ls-files", "-co", "--exclude-standard", ...(under ? ["--", under] : []))
    .split("\n")
    .filter((f) => f !== "" && existsSync(join(root, f)));

const isDir = (path: string): boolean =>
  existsSync(join(root, path)) && statSync(join(root, path)).isDirectory();
const isFile = (path: string): boolean => existsSync(join(root, path)) && statSync(join(root, path)).isFile();

/** Folder moves expanded to one entry per file: from the source before the move, from the destination after. */
function expand(moves: Record<string, string>): Map<string, string> {
  const files = new Map<string, string>();
  for (const [from, to] of Object.entries(moves)) {
    const left = isDir(from) ? trackedFiles(from) : [];
    if (left.length > 0) {
      for (const file of left) files.set(file, join(to, relative(from, file)));
    } else if (!isFile(from) && isDir(to)) {
      // Moved already (an emptied folder may stay behind): the destination lists what moved.
      for (const file of trackedFiles(to)) files.set(join(from, relative(to, file)), file);
    } else {
      files.set(from, to);
    }
  }
  return files;
}

function moveFiles(moves: Map<string, string>): void {
  for (const [from, to] of moves) {
    if (from === to) continue;
    if (isFile(from) && isFile(to)) throw new Error(`both ${from} and ${to} exist: merge them by hand first`);
    if (!isFile(from)) continue;
    console.log(`move ${from} -> ${to}`);
    if (dryRun) continue;
    mkdirSync(dirname(join(root, to)), { recursive: true });
    git("mv", from, to);
  }
}

/** The `#name/*` -> `./name/*` map of package.json, the aliases a specifier may use. */
function aliases(): Map<string, string> {
  const manifest: { imports?: Record<string, string> } = JSON.parse(
    readFileSync(join(root, "package.json"), "utf8"),
  );
  const map = new Map<string, string>();
  for (const [alias, target] of Object.entries(manifest.imports ?? {})) {
    if (alias.endsWith("/*") && target.endsWith("/*"))
      map.set(alias.slice(0, -1), normalize(target.slice(0, -2)));
  }
  return map;
}

const specifierPattern =
  /(\bfrom\s+|\bimport\s*\(\s*|\bimport\s+|\bmock\.module\(\s*|\bdeclare\s+module\s+)(["'])([.#][^"'\n]*)\2/g;

interface Rewriter {
  moves: Map<string, string>;
  /** New path -> old path: where a moved file's relative specifiers were written from. */
  movedFrom: Map<string, string>;
  aliasMap: Map<string, string>;
}

/** The repository-relative file a specifier names, seen from `dir`, or undefined when it is no file of ours. */
function resolve(spec: string, dir: string, aliasMap: Map<string, string>): string | undefined {
  if (spec.startsWith(".")) return normalize(join(dir, spec));
  for (const [alias, target] of aliasMap)
    if (spec.startsWith(alias)) return normalize(join(target, spec.slice(alias.length)));
  return undefined;
}

/** A `#folder/...` specifier stays one; a relative one stays relative unless it now leaves its top folder. */
function write(target: string, spec: string, fromDir: string, aliasMap: Map<string, string>): string {
  const leavesTop = target.split("/")[0] !== fromDir.split("/")[0];
  if (spec.startsWith("#") || leavesTop) {
    for (const [alias, folder] of aliasMap)
      if (target.startsWith(`${folder}/`)) return alias + target.slice(folder.length + 1);
  }
  const rel = relative(fromDir, target);
  return rel.startsWith(".") ? rel : `./${rel}`;
}

function rewriteSpecifier(file: string, spec: string, r: Rewriter): string {
  const here = dirname(file);
  const current = resolve(spec, here, r.aliasMap);
  if (current === undefined) return spec;
  let target = current;
  const oldSelf = r.movedFrom.get(file);
  if (!isFile(current) && !isDir(current) && oldSelf && spec.startsWith(".")) {
    // A moved file whose relative specifiers were written from where it was.
    target = resolve(spec, dirname(oldSelf), r.aliasMap) ?? current;
  }
  target = r.moves.get(target) ?? target;
  if (target === current) return spec;
  if (!isFile(target) && !dryRun) return spec;
  return write(target, spec, here, r.aliasMap);
}

function rewriteSource(file: string, r: Rewriter): boolean {
  const path = join(root, file);
  const text = readFileSync(path, "utf8");
  const next = text.replace(specifierPattern, (whole, head: string, quote: string, spec: string) => {
    const rewritten = rewriteSpecifier(file, spec, r);
    return rewritten === spec ? whole : `${head}${quote}${rewritten}${quote}`;
  });
  if (next === text) return false;
  if (!dryRun) writeFileSync(path, next);
  return true;
}

function rewriteText(file: string, moves: Map<string, string>): boolean {
  const path = join(root, file);
  const text = readFileSync(path, "utf8");
  let next = text;
  for (const [from, to] of moves) {
    const escaped = from.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    next = next.replace(new RegExp(`(?<![\\w./-])${escaped}(?![\\w-])`, "g"), to);
  }
  if (next === text) return false;
  if (!dryRun) writeFileSync(path, next);
  return true;
}

const moves = new Map<string, string>();
for (const mapFile of mapFiles) {
  for (const [from, to] of expand(JSON.parse(readFileSync(mapFile, "utf8")))) moves.set(from, to);
}
moveFiles(moves);
const rewriter: Rewriter = {
  moves,
  movedFrom: new Map([...moves].map(([a, b]) => [b, a])),
  aliasMap: aliases(),
};
let changed = 0;
for (const file of trackedFiles()) {
  if (file.includes("node_modules/") || file.startsWith("proto/gen/") || file.startsWith("scripts/codemods/"))
    continue;
  // Source files: their specifiers, then the paths their comments and strings name (`bun server/main.ts`).
  const source = /\.(ts|tsx)$/.test(file) && rewriteSource(file, rewriter);
  const text = (/\.(ts|tsx|md)$/.test(file) && file !== "README.md" && rewriteText(file, moves)) || false;
  if (source || text) changed++;
}
console.log(`${moves.size} moves, ${changed} files rewritten${dryRun ? " (dry run)" : ""}`);
