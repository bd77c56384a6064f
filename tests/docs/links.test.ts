// Every relative link and picture of README.md and docs/ names a file that exists (outside fenced
// blocks), so a renamed doc, a moved adapter README or a screenshot not committed fails here.
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { documentedFiles, root } from "./blocks.ts";

test("relative links and images resolve", () => {
  const broken: string[] = [];
  let checked = 0;
  for (const file of documentedFiles()) {
    const prose = readFileSync(join(root, file), "utf8").replace(/```[\s\S]*?```/g, "");
    for (const [, target = ""] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("#")) continue;
      checked++;
      if (!existsSync(join(root, dirname(file), target.split("#")[0] ?? "")))
        broken.push(`${file}: ${target}`);
    }
  }
  expect(checked).toBeGreaterThan(20);
  expect(broken).toEqual([]);
});
