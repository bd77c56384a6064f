// No module imports itself back, directly or through others (type imports count: a cycle of types is
// still two modules that cannot be understood or moved apart). madge reads the import graph.
import { expect, test } from "bun:test";
import { join } from "node:path";
import madge from "madge";

const root = join(import.meta.dir, "../..");
const folders = ["adapters", "contracts", "core", "db", "routes", "server", "services"];

test("no import cycle in the tree", async () => {
  const graph = await madge(folders, {
    baseDir: root,
    fileExtensions: ["ts", "tsx"],
    tsConfig: join(root, "tsconfig.json"),
  });
  const cycles = graph.circular().map((cycle) => cycle.join(" > "));
  // The graph is the whole tree, not an empty read that would find nothing.
  expect(Object.keys(graph.obj()).length).toBeGreaterThan(400);
  expect(cycles).toEqual([]);
}, 60_000);
