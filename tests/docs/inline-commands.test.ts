// The commands written inline in the prose of README.md and docs/ (`bun run <script>`, `bun run bench
// <name>`, `bun <file>`) name scripts, benchmarks and files that exist: the ones too long or too heavy
// to run in CI (benchmarks, training) cannot go stale by a rename. Fenced blocks are run or marked
// (tests/docs/blocks.ts).
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { documentedFiles, root } from "./blocks.ts";

const scripts = Object.keys(
  (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> })
    .scripts,
);
const builtIn = new Set(["add", "install", "test", "start", "run"]);

function inlineCommands(): { file: string; command: string }[] {
  return documentedFiles().flatMap((file) => {
    const prose = readFileSync(join(root, file), "utf8").replace(/```[\s\S]*?```/g, "");
    return [...prose.matchAll(/`(bun [^`]+)`/g)].map(([, command = ""]) => ({ file, command }));
  });
}

/** Why a command names nothing that exists, or undefined when it does. */
function problemOf(command: string): string | undefined {
  const [, first = "", second = ""] = command.split(/\s+/);
  if (first === "run") {
    if (!scripts.includes(second)) return `no script "${second}" in package.json`;
    if (second === "bench") {
      const name = command.split(/\s+/)[3];
      if (name && !existsSync(join(root, "bench", `${name}.ts`))) return `no bench/${name}.ts`;
    }
    return undefined;
  }
  if (first.endsWith(".ts")) return existsSync(join(root, first)) ? undefined : `no file ${first}`;
  // Bun's own flags (`bun --cpu-prof`) name nothing of the project's.
  if (builtIn.has(first) || scripts.includes(first) || first.startsWith("--")) return undefined;
  return `"bun ${first}" is neither a script, a file nor a bun command`;
}

test("inline bun commands name scripts, benchmarks and files that exist", () => {
  const commands = inlineCommands();
  expect(commands.length).toBeGreaterThan(10);
  const stale = commands.flatMap(({ file, command }) => {
    const problem = problemOf(command);
    return problem ? [`${file}: \`${command}\`: ${problem}`] : [];
  });
  expect(stale).toEqual([]);
});

test("a renamed script or file is caught", () => {
  expect(problemOf("bun run bench no-such-bench")).toBe("no bench/no-such-bench.ts");
  expect(problemOf("bun run no-such-script")).toBe('no script "no-such-script" in package.json');
  expect(problemOf("bun scripts/gone.ts out")).toBe("no file scripts/gone.ts");
  expect(problemOf("bun run admin:reset-password EMAIL")).toBeUndefined();
});
