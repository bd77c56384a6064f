// The tree is built in floors, each importing only those below it: core/ (errors, logging, ids, the
// ports adapters implement) and db/ at the bottom, then adapters/, services/, server/ (the HTTP and gRPC
// machinery routes are written with), routes/, and the entry at the top of the repository that ties them
// together. An import upward is a floor that knows the one above it; a cycle between second-level
// folders (services/x -> services/y -> services/x) is two folders that cannot be understood apart.
// madge reads the import graph, type imports included, as tests/foundation/import-cycles.test.ts does.
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import madge from "madge";

const root = join(import.meta.dir, "../..");
const floors = ["core", "contracts", "db", "adapters", "services", "server", "routes"];
/** Where each top folder may not import: every floor above its own. db sits beside core and may use it. */
const floorOf = new Map(floors.map((folder, index) => [folder, index]));

/** A file's second-level folder: `services/inference` for services/inference/x.ts, `services/` for services/x.ts. */
function folderOf(file: string): string {
  const parts = file.split("/");
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : `${parts[0]}/`;
}

/** Strongly connected components with more than one folder (Tarjan's algorithm). */
function knots(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const to of edges.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(to) ?? 0));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(to) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

// NOT YET FIXED (#37), listed so that the test fails on anything new and on anything fixed and not
// struck off: both lists may only shrink, and the issue is done when they are empty.
// No upward import is left (the wire shapes moved to contracts/, a floor beside core/).
const knownUpward: string[] = [];
// - No knot of services/ folders is left: each was broken by moving the piece both sides used down a
//   floor (contracts/internal/, services/guardrails/message-text.ts, services/policy-references.ts, ...).
const knownKnots: string[][] = [];

const graph = await madge(
  floors.filter((folder) => existsSync(join(root, folder))),
  { baseDir: root, fileExtensions: ["ts", "tsx"], tsConfig: join(root, "tsconfig.json") },
);
const imports = Object.entries(graph.obj());

test("the graph is the whole tree, not an empty read that would find nothing", () => {
  expect(imports.length).toBeGreaterThan(400);
});

test("no floor imports a floor above it (beyond the known ones, listed above)", () => {
  const upward: string[] = [];
  for (const [file, deps] of imports) {
    const from = floorOf.get(file.split("/")[0] ?? "");
    for (const dep of deps) {
      const to = floorOf.get(dep.split("/")[0] ?? "");
      if (from !== undefined && to !== undefined && to > from) upward.push(`${file} -> ${dep}`);
    }
  }
  expect(upward.sort()).toEqual(knownUpward);
});

test("no cycle between second-level folders (beyond the known knots, listed above)", () => {
  const edges = new Map<string, Set<string>>();
  for (const [file, deps] of imports) {
    const from = folderOf(file);
    for (const dep of deps) {
      const to = folderOf(dep);
      if (to === from) continue;
      const out = edges.get(from) ?? new Set<string>();
      out.add(to);
      edges.set(from, out);
    }
  }
  const found = knots(edges).sort((a, b) => a.length - b.length);
  expect(found).toEqual(knownKnots);
});

test("the cycle finder finds a knot of folders and only that", () => {
  // Without this, a finder that never reports would make the test above pass on any tree.
  const edges = new Map([
    ["a/x", new Set(["a/y"])],
    ["a/y", new Set(["a/z"])],
    ["a/z", new Set(["a/x"])],
    ["b/", new Set(["a/x"])],
  ]);
  expect(knots(edges)).toEqual([["a/x", "a/y", "a/z"]]);
});
