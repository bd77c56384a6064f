// Points the imports of a module that was split at the modules that now hold each name. Idempotent: a
// file that no longer imports the old module is left as it is.
//
//   bun scripts/codemods/split-module.ts scripts/codemods/splits/<module>.json
//
// The JSON: { "from": "<old path>", "to": { "<exported name>": "<new path>", ... } } (repository-relative).
// `import { a, type B } from "<old>"` becomes one import per new module, in the old specifier's style
// (`#folder/...` or relative). A name the map does not know stops the run (add it to the map), unless
// the JSON says `"keepRest": true`: the old module still exists and keeps the names not in the map.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

const root = join(import.meta.dir, "../..");
const specFile = process.argv[2];
if (!specFile) {
  console.error("usage: bun scripts/codemods/split-module.ts <split.json>");
  process.exit(2);
}
const split: { from: string; to: Record<string, string>; keepRest?: boolean } = JSON.parse(
  readFileSync(specFile, "utf8"),
);

const files = Bun.spawnSync(["git", "ls-files", "-co", "--exclude-standard"], { cwd: root })
  .stdout.toString()
  .split("\n")
  .filter((f) => /\.tsx?$/.test(f) && !f.includes("node_modules/") && !f.startsWith("scripts/codemods/"));

const importPattern = /import\s+(type\s+)?\{([^}]*)\}\s+from\s+(["'])([.#][^"']*)\3;?/g;

function resolved(spec: string, file: string): string {
  return spec.startsWith("#") ? normalize(spec.slice(1)) : normalize(join(dirname(file), spec));
}

function specifierFor(target: string, oldSpec: string, file: string): string {
  if (target === split.from) return oldSpec;
  if (oldSpec.startsWith("#")) return `#${target}`;
  const rel = relative(dirname(file), target);
  return rel.startsWith(".") ? rel : `./${rel}`;
}

let changed = 0;
for (const file of files) {
  const path = join(root, file);
  const text = readFileSync(path, "utf8");
  const next = text.replace(
    importPattern,
    (whole, typeOnly: string | undefined, names: string, _q, spec: string) => {
      if (resolved(spec, file) !== split.from) return whole;
      const byModule = new Map<string, string[]>();
      for (const raw of names
        .split(",")
        .map((n) => n.trim())
        .filter(Boolean)) {
        const name = raw.replace(/^type\s+/, "").split(/\s+as\s+/)[0] ?? raw;
        const target = split.to[name] ?? (split.keepRest ? split.from : undefined);
        if (!target) throw new Error(`${file}: ${name} is not in ${specFile}`);
        byModule.set(target, [...(byModule.get(target) ?? []), raw]);
      }
      if (byModule.size === 1 && byModule.has(split.from)) return whole;
      return [...byModule]
        .map(
          ([target, list]) =>
            `import ${typeOnly ?? ""}{ ${list.join(", ")} } from "${specifierFor(target, spec, file)}";`,
        )
        .join("\n");
    },
  );
  if (next !== text) {
    writeFileSync(path, next);
    changed++;
  }
}
console.log(`${changed} files rewritten`);
