// The committed proto/gen is what `bun run proto` makes from proto/ now: a .proto edited without
// regenerating fails here, and so does a generator that stops working (protoc-gen-es runs on the
// project's own TypeScript, forced by package.json's overrides instead of the 32 MB copy it pins).
import { afterAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { tempDirs } from "../support/temp.ts";

const root = join(import.meta.dir, "..", "..");
const temp = tempDirs();
afterAll(temp.remove);

function files(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else found.set(relative(dir, path), readFileSync(path, "utf8"));
    }
  };
  walk(dir);
  return found;
}

test("buf generate reproduces proto/gen exactly", async () => {
  const out = temp.make("llmp-proto-gen-");
  const proc = Bun.spawn(["bunx", "buf", "generate", "proto", "--output", out], {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [err, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  expect({ code, err }).toEqual({ code: 0, err: "" });
  const made = files(join(out, "proto", "gen"));
  expect(made.size).toBeGreaterThan(3);
  expect(made).toEqual(files(join(root, "proto", "gen")));
}, 60_000);
