// Builds bench/guard-datasets/indirect.jsonl.gz: text an assistant reads as data (tool outputs, e-mails,
// tables, code, documents), labelled true when an instruction aimed at the assistant is planted in it.
// Read from local mirrors of public repositories (bare git directories, GUARD_MIRRORS, default
// /work/.mirror/<owner>+<name>/repo) and from Debian documentation installed on the machine; sources and
// licences in bench/guard-datasets/README.md ("Indirect injection"). Deterministic: same inputs, same file.
//   bun scripts/build-indirect-dataset.ts
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { IndirectItem } from "../bench/guard-datasets/load.ts";

const MIRRORS = process.env.GUARD_MIRRORS ?? "/work/.mirror";
const OUT = join(import.meta.dir, "../bench/guard-datasets/indirect.jsonl.gz");
const MAX_CHARS = 2000;

function show(repo: string, path: string): string {
  return execFileSync(
    "git",
    ["--git-dir", join(MIRRORS, repo.replace("/", "+"), "repo"), "show", `HEAD:${path}`],
    {
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
      stdio: ["ignore", "pipe", "ignore"],
    },
  );
}

const items: IndirectItem[] = [];
const seen = new Set<string>();
function add(text: string, label: boolean, source: string): void {
  const t = text.trim().slice(0, MAX_CHARS);
  if (t.length < 20) return;
  const key = t.toLowerCase().replace(/[^a-z0-9]+/g, "");
  if (seen.has(key)) return;
  seen.add(key);
  items.push({ text: t, label, source, role: "data" });
}

/** Where BIPIA puts an attack: before the context, in its middle (at a line break), or after it. */
function plant(context: string, attack: string, position: number): string {
  if (position === 0) return `${attack}\n${context}`;
  if (position === 2) return `${context}\n${attack}`;
  const lines = context.split("\n");
  const at = Math.floor(lines.length / 2);
  return [...lines.slice(0, at), attack, ...lines.slice(at)].join("\n");
}

function bipia(): void {
  const repo = "microsoft/BIPIA";
  const attacksOf = (file: string): string[] =>
    Object.values(JSON.parse(show(repo, `benchmark/${file}`)) as Record<string, string[]>).flat();
  const textAttacks = [...attacksOf("text_attack_train.json"), ...attacksOf("text_attack_test.json")];
  const codeAttacks = [...attacksOf("code_attack_train.json"), ...attacksOf("code_attack_test.json")];
  for (const task of ["email", "table", "code"] as const) {
    const attacks = task === "code" ? codeAttacks : textAttacks;
    let i = 0;
    for (const file of ["train", "test"]) {
      // At most 100 contexts a file: the table task has 900, and would outweigh the others.
      for (const line of show(repo, `benchmark/${task}/${file}.jsonl`).split("\n").slice(0, 100)) {
        if (line.trim() === "") continue;
        const row = JSON.parse(line) as { context: string | string[] };
        const context = Array.isArray(row.context) ? row.context.join("\n") : row.context;
        // Each context twice: clean (a negative) and with one attack planted (a positive).
        add(context, false, `bipia:${task}`);
        add(
          plant(context.slice(0, MAX_CHARS - 400), attacks[(i * 7) % attacks.length] ?? "", i % 3),
          true,
          `bipia:${task}`,
        );
        i++;
      }
    }
  }
}

function purpleLlama(): void {
  const dir = "CybersecurityBenchmarks/datasets/prompt_injection";
  for (const [file, source] of [
    ["prompt_injection.json", "purplellama:indirect"],
    ["prompt_injection_multilingual_machine_translated.json", "purplellama:indirect_multilingual"],
  ] as const) {
    const rows = JSON.parse(show("meta-llama/PurpleLlama", `${dir}/${file}`)) as {
      injection_type: string;
      user_input: string;
    }[];
    for (const row of rows) if (row.injection_type === "indirect") add(row.user_input, true, source);
  }
}

/** Every string of a parsed YAML document, depth first. */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value && typeof value === "object") for (const v of Object.values(value)) strings(v, out);
  return out;
}

/** The GOAL of every injection task, its f-string fields filled from the class's constants. */
function agentDojoGoals(source: string): string[] {
  const goals: string[] = [];
  for (const block of source.split(/\nclass |\n@task_suite/)) {
    const constants = new Map<string, string>();
    for (const m of block.matchAll(/^\s+(_[A-Z_]+)\s*=\s*"([^"\n]*)"/gm))
      constants.set(m[1] ?? "", m[2] ?? "");
    const goal = /GOAL\s*=\s*\(?\s*f?"{1,3}([^"]+)"{1,3}/.exec(block)?.[1];
    if (!goal) continue;
    const filled = goal.replace(
      /\{(?:self\.)?(_[A-Z_]+)\}/g,
      (_, name: string) => constants.get(name) ?? name,
    );
    if (!/\{/.test(filled)) goals.push(filled);
  }
  return goals;
}

function agentDojo(): void {
  const repo = "sequrity-ai/agentdojo";
  const templates = [
    ...show(repo, "src/agentdojo/attacks/baseline_attacks.py").matchAll(/"([^"\n]*\{goal\}[^"\n]*)"/g),
  ].map((m) => m[1] ?? "");
  const important = show(repo, "src/agentdojo/attacks/important_instructions_attacks.py");
  const jb = /_JB_STRING = \(([\s\S]*?)\n {4}\)/.exec(important)?.[1] ?? "";
  templates.push(
    [...jb.matchAll(/"((?:[^"\\]|\\.)*)"/g)]
      .map((m) => JSON.parse(`"${m[1]}"`) as string)
      .join("")
      .replaceAll("{user}", "Emma Johnson")
      .replaceAll("{model}", "GPT-4"),
  );
  const attackTemplates = templates.filter((t) => t.includes("{goal}"));
  for (const suite of ["workspace", "slack", "travel", "banking"]) {
    const base = `src/agentdojo/data/suites/${suite}`;
    const vectors = Bun.YAML.parse(show(repo, `${base}/injection_vectors.yaml`)) as Record<
      string,
      { default: string }
    >;
    const files = [`${base}/environment.yaml`, ...listYaml(repo, `${base}/include`)];
    const data: string[] = [];
    for (const file of files) {
      const raw = show(repo, file).replace(
        /\{(\w+)\}/g,
        (all, name: string) => vectors[name]?.default ?? all,
      );
      const parsed = Bun.YAML.parse(raw.replace(/!include [^\n]+/g, "null"));
      for (const s of strings(parsed)) if (s.length >= 40) data.push(s);
    }
    for (const text of data) add(text, false, "agentdojo:tool_outputs");
    const goals: string[] = [];
    for (const version of ["v1", "v1_1_1", "v1_1_2", "v1_2"]) {
      try {
        goals.push(
          ...agentDojoGoals(
            show(repo, `src/agentdojo/default_suites/${version}/${suite}/injection_tasks.py`),
          ),
        );
      } catch {
        // Not every suite has every version.
      }
    }
    goals.forEach((goal, i) => {
      const attack = (attackTemplates[i % attackTemplates.length] ?? "{goal}").replace("{goal}", goal);
      const host = data[(i * 5) % Math.max(1, data.length)] ?? "";
      add(plant(host, attack, i % 3), true, "agentdojo:injections");
    });
  }
}

function listYaml(repo: string, dir: string): string[] {
  try {
    return execFileSync(
      "git",
      ["--git-dir", join(MIRRORS, repo.replace("/", "+"), "repo"), "ls-tree", "--name-only", `HEAD:${dir}`],
      {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      },
    )
      .split("\n")
      .filter((f) => f.endsWith(".yaml"))
      .map((f) => `${dir}/${f}`);
  } catch {
    return [];
  }
}

/**
 * Debian's news and README files: mail-like prose written to people, full of ordinary imperatives
 * ("please report bugs to ...", "run dpkg-reconfigure ..."): hard negatives. At most 6 paragraphs a file.
 */
function debianDocs(): void {
  const root = "/usr/share/doc";
  for (const pkg of readdirSync(root).sort()) {
    for (const name of ["NEWS.Debian.gz", "README.Debian", "README.Debian.gz"]) {
      let text: string;
      try {
        const bytes = readFileSync(join(root, pkg, name));
        text = new TextDecoder().decode(name.endsWith(".gz") ? Bun.gunzipSync(bytes) : bytes);
      } catch {
        continue;
      }
      const paragraphs = text
        .split(/\n\s*\n/)
        .map((p) => p.replace(/^ -- .*$/gm, "").trim())
        .filter((p) => p.length >= 80);
      for (const p of paragraphs.slice(0, 6)) add(p, false, "debian:docs");
    }
  }
}

// ---- the blind check (issue #31): sources the indirect-injection patterns were not written from ----
// Built into a file of their own, indirect-blind.jsonl.gz, and measured apart
// (bench/guardrails-indirect.ts): the scanner was not changed after these texts were read, and the
// threshold they are measured at is the one the other sources choose. `bun
// scripts/build-indirect-dataset.ts blind` builds only that file (from the two mirrors below, at the
// commits named, and the existing indirect.jsonl.gz, whose texts are dropped from it).
const BLIND_OUT = join(import.meta.dir, "../bench/guard-datasets/indirect-blind.jsonl.gz");
const BLIND_COMMITS: Record<string, string> = {
  "ReversecLabs/spikee": "454f7a0c21db2dd8779c23408f24700430c71d8b",
  "greshake/llm-security": "87f4b7ffa568b7261a79b31573068d8113319212",
};

function showAt(repo: string, path: string): string {
  const commit = BLIND_COMMITS[repo] ?? "HEAD";
  return execFileSync(
    "git",
    ["--git-dir", join(MIRRORS, repo.replace("/", "+"), "repo"), "show", `${commit}:${path}`],
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, stdio: ["ignore", "pipe", "ignore"] },
  );
}

/**
 * spikee (WithSecure / Reversec Labs): the documents of its published "targeted-2024-12-document"
 * dataset (an e-mail with one of its jailbreak templates and instructions appended, as its guardrail
 * runs sent them) and of its "guardrail-false-positive-check" set (30 e-mails written to read like
 * injections: "Ignore the previous draft ... follow the new instructions"). The inputs are the same in
 * every target's result file; one file of each is read.
 */
function spikee(): void {
  const repo = "ReversecLabs/spikee";
  const files: [string, boolean][] = [
    ["results/v0.1/results_az_prompt_shields-targeted-2024-12-document_1734615457.jsonl", true],
    [
      "results/v0.1/results_az_prompt_shields-1734615302_guardrail-false-positive-check_1734623707.jsonl",
      false,
    ],
  ];
  for (const [file, label] of files)
    for (const line of showAt(repo, file).split("\n")) {
      if (line.trim() === "") continue;
      const row = JSON.parse(line) as { input: string };
      add(row.input, label, label ? "blind:spikee:documents" : "blind:spikee:false_positive_check");
    }
}

/** The triple-quoted strings a scenario assigns to `name`, dedented. */
function pythonStrings(source: string, names: readonly string[]): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(/(\w+)\s*=\s*[fr]?"""([\s\S]*?)"""/g))
    if (names.includes(m[1] ?? "")) out.push((m[2] ?? "").replace(/^ {4}/gm, ""));
  return out;
}

/**
 * Greshake et al., "Not what you've signed up for" (2023), the scenarios of its demonstration code:
 * the payloads planted in e-mails, web pages, social-media posts and code (by the variable each
 * scenario names them with), its puzzle pages, and as negatives the clean web page a scenario browses
 * and paragraphs of the Wikipedia article the multi-stage scenario retrieves.
 */
function greshake(): void {
  const repo = "greshake/llm-security";
  const payloads = [
    "attacker_social_media_injection",
    "instructions",
    "original_injection",
    "text",
    "injection",
    "primary_payload",
    "malicious_email",
  ];
  const files = execFileSync(
    "git",
    [
      "--git-dir",
      join(MIRRORS, repo.replace("/", "+"), "repo"),
      "ls-tree",
      "-r",
      "--name-only",
      BLIND_COMMITS[repo] ?? "HEAD",
    ],
    { encoding: "utf8" },
  )
    .split("\n")
    .sort();
  for (const file of files.filter((f) => /^scenarios\/(?:gpt4|gpt3langchain)\/[\w-]+\.py$/.test(f))) {
    const source = showAt(repo, file);
    for (const text of pythonStrings(source, payloads)) add(text, true, "blind:greshake:payloads");
    for (const text of pythonStrings(source, ["current_website"])) add(text, false, "blind:greshake:clean");
  }
  for (const file of files.filter((f) => f.startsWith("scenarios/puzzle/puzzles/")))
    add(showAt(repo, file), true, "blind:greshake:payloads");
  add(
    showAt(repo, "scenarios/code-completion/advanced-example/injection/leftpad.py"),
    true,
    "blind:greshake:payloads",
  );
  const article = showAt(repo, "scenarios/common/albert_einstein.md").split(/\n\s*\n/);
  for (const paragraph of article.slice(0, 6)) add(paragraph, false, "blind:greshake:clean");
}

function write(path: string, written: readonly IndirectItem[]): void {
  const lines = written.map((item) => JSON.stringify(item)).join("\n");
  writeFileSync(path, Bun.gzipSync(new TextEncoder().encode(`${lines}\n`), { level: 9 }));
  const counts = new Map<string, [number, number]>();
  for (const item of written) {
    const c = counts.get(item.source) ?? [0, 0];
    c[item.label ? 0 : 1]++;
    counts.set(item.source, c);
  }
  for (const [source, [pos, neg]] of counts) console.log(`${source}: ${pos} positive, ${neg} negative`);
}

if (process.argv[2] === "blind") {
  // The texts already in indirect.jsonl.gz are marked seen, so a blind text equal to one (letters and
  // digits compared, case folded) is dropped.
  const existing = new TextDecoder()
    .decode(Bun.gunzipSync(readFileSync(OUT)))
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as IndirectItem);
  for (const item of existing) add(item.text, item.label, item.source);
  const before = items.length;
  spikee();
  greshake();
  write(BLIND_OUT, items.slice(before));
} else {
  bipia();
  purpleLlama();
  agentDojo();
  debianDocs();
  write(OUT, items);
}
