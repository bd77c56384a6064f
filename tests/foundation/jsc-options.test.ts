// The JavaScriptCore options of server/jsc-options.ts reach every way the platform is started: JSC
// reads them from the environment at process start, so `bun start` (package.json) and the container
// image (deploy/Dockerfile) each set them, and a value changed in one place must change in all.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { jscOptions } from "#server/jsc-options.ts";

const root = join(import.meta.dir, "../..");
const entries = Object.entries(jscOptions);

test("bun start sets each option, unless the environment already does", () => {
  const start = (
    JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: { start: string } }
  ).scripts.start;
  expect(entries.length).toBeGreaterThan(0);
  for (const [name, value] of entries) expect(start).toContain(`${name}=\${${name}:-${value}} `);
  expect(start.endsWith("bun run main.ts")).toBe(true);
});

test("the container image sets each option", () => {
  const dockerfile = readFileSync(join(root, "deploy", "Dockerfile"), "utf8");
  for (const [name, value] of entries) expect(dockerfile).toContain(`\nENV ${name}=${value}\n`);
});
