// The fenced blocks of README.md and every Markdown file under docs/ (new files are picked up as they
// appear), each with the HTML comment on the line just above its fence, which says who runs it:
//
//   <!-- readme-workflow… --> or <!-- docs-workflow: NAME -->  a test in tests/docs that names the marker
//                                                              runs it, with the blocks it continues from
//   <!-- docs-run -->                                          tests/docs/docs-commands.test.ts runs it, alone,
//                                                              after the README walk-through's variables
//   <!-- not-run: why -->                                      not run here, and why (a cloud, a placeholder…)
//
// A block of commands (sh, bash, shell, zsh, console, ts, js or no language at all) must carry one of them;
// data and output (json, text, yaml, promql…) need none. A transcript (its first line starts with "$ ")
// runs its "$ " commands and ignores the output lines between them.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

export const root = join(import.meta.dir, "..", "..");

export type Marker =
  | { kind: "workflow"; name: string }
  | { kind: "run" }
  | { kind: "not-run"; reason: string }
  | { kind: "none" };

export interface Block {
  /** Path from the repository's root. */
  file: string;
  /** Line of the opening fence, 1-based. */
  line: number;
  lang: string;
  body: string;
  marker: Marker;
}

const commandLanguages = new Set([
  "",
  "sh",
  "bash",
  "shell",
  "zsh",
  "console",
  "ts",
  "js",
  "typescript",
  "javascript",
]);

export const isCommandBlock = (block: Block): boolean => commandLanguages.has(block.lang);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory()
        ? markdownFiles(join(dir, entry.name))
        : entry.name.endsWith(".md")
          ? [join(dir, entry.name)]
          : [],
    )
    .sort();
}

/** README.md, then docs/**.md in name order. */
export function documentedFiles(): string[] {
  return [join(root, "README.md"), ...markdownFiles(join(root, "docs"))].map((path) => relative(root, path));
}

function markerOf(line: string | undefined): Marker {
  const comment = /^<!--\s*(.*?)\s*-->$/.exec(line?.trim() ?? "")?.[1];
  if (comment === undefined) return { kind: "none" };
  if (comment === "docs-run") return { kind: "run" };
  const notRun = /^not-run:\s*(.*)$/s.exec(comment);
  if (notRun) return { kind: "not-run", reason: notRun[1] ?? "" };
  if (/^(readme-workflow|docs-workflow)\b/.test(comment)) return { kind: "workflow", name: comment };
  return { kind: "none" };
}

export function blocksOf(file: string): Block[] {
  const lines = readFileSync(join(root, file), "utf8").split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[i] as string);
    if (!open) continue;
    const fence = open[2] as string;
    let end = i + 1;
    while (end < lines.length && (lines[end] as string).trim() !== fence) end++;
    blocks.push({
      file,
      line: i + 1,
      lang: (open[3] ?? "").toLowerCase(),
      body: lines.slice(i + 1, end).join("\n"),
      marker: markerOf(lines[i - 1]),
    });
    i = end;
  }
  return blocks;
}

export const allBlocks = (): Block[] => documentedFiles().flatMap(blocksOf);

/** The first block whose marker is exactly `name` in `file`. */
export function workflowBlock(file: string, name: string): string {
  const block = blocksOf(file).find((b) => b.marker.kind === "workflow" && b.marker.name === name);
  if (!block) throw new Error(`no block marked <!-- ${name} --> in ${file}`);
  return block.body;
}

export interface TranscriptStep {
  command: string;
  /** The output lines shown under it. */
  shown: string[];
}

/** A transcript's "$ " commands, each continued over the lines that follow until bash parses it whole. */
export function transcriptOf(block: Block): TranscriptStep[] | undefined {
  const lines = block.body.split("\n");
  if (!lines.find((l) => l.trim() !== "")?.startsWith("$ ")) return undefined;
  const steps: TranscriptStep[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (!line.startsWith("$ ")) {
      if (line.trim() !== "") steps.at(-1)?.shown.push(line);
      continue;
    }
    let command = line.slice(2);
    while (!parses(command) && i + 1 < lines.length) command += `\n${lines[++i]}`;
    steps.push({ command, shown: [] });
  }
  return steps;
}

/** The shell script a block stands for: the block itself, or a transcript's commands. */
export function scriptOf(block: Block): string {
  return (
    transcriptOf(block)
      ?.map((step) => step.command)
      .join("\n") ?? block.body
  );
}

/**
 * The error codes a transcript shows, per command: a shown line that is a JSON error body
 * (`{"error": {"code": …}}`, either gateway's shape) must be what the command answers now.
 */
export function shownErrorCodes(step: TranscriptStep): string[] {
  return step.shown.flatMap((line) => {
    try {
      const code = (JSON.parse(line) as { error?: { code?: unknown } }).error?.code;
      return typeof code === "string" ? [code] : [];
    } catch {
      const loose = /^\{"error":\{.*?"code":"([a-z_]+)"/.exec(line);
      return loose?.[1] ? [loose[1]] : [];
    }
  });
}

function parses(script: string): boolean {
  if (script.trimEnd().endsWith("\\")) return false;
  return Bun.spawnSync(["bash", "-n", "-c", script], { stdout: "ignore", stderr: "ignore" }).exitCode === 0;
}

/**
 * Shell lines that terminate every deployment still running and wait until it stopped, with
 * $O and $AUTH of the walk-through (nothing when they are unset): the platform leaves its workers running
 * when it stops, so a test that started some ends them this way. No single quote inside (used in a trap).
 */
export const stopEverything = `[ -n "\${AUTH:-}" ] && for id in $(curl -sf $O/deployment/deployments -H "$AUTH" \\
  | jq -r ".deployments[] | select(.status == \\"RUNNING\\") | .deployment_id"); do
  curl -sf $O/deployment/terminate -H "$AUTH" -H "content-type: application/json" -d "{\\"deployment_id\\":\\"$id\\"}" >/dev/null
  until curl -sf $O/deployment/status/$id -H "$AUTH" | jq -e ".status == \\"STOPPED\\" or .status == \\"FAILED\\"" >/dev/null; do sleep 0.5; done
done >/dev/null 2>&1 || true`;
