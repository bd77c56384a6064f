// The README stays a page a newcomer reads through: under 15,000 bytes (the project's rule for it);
// what does not fit goes to docs/ and is linked from it.
import { expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { root } from "./blocks.ts";

test("README.md is under 15,000 bytes", () => {
  expect(statSync(join(root, "README.md")).size).toBeLessThan(15_000);
});
