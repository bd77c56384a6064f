// Builds bench/guard-datasets/pii-heldout.jsonl.gz: PII texts with labelled spans, from public
// repositories the PII detectors were never built against (sources and licences in
// bench/guard-datasets/README.md). Every repository is read at a fixed commit from a local bare mirror
// (`PII_MIRRORS`, default /work/.mirror/<owner>+<name>/repo), so the file is rebuilt byte for byte.
//   bun scripts/build-pii-heldout.ts
// The split is by source: "dev" items may be looked at while tuning the detectors, "heldout" never.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PiiBenchItem, PiiBenchSpan, PiiBenchType } from "../bench/guard-datasets/pii-load.ts";

const MIRRORS = process.env.PII_MIRRORS ?? "/work/.mirror";
const OUT = join(import.meta.dir, "../bench/guard-datasets/pii-heldout.jsonl.gz");

const COMMITS = {
  "microsoft/presidio-research": "7622dec1e5f7d25dc60b57c28c39f4c4af197018",
  "microsoft/presidio": "0aa9f8e44275cb52c00fbbebe19168e934e1f076",
  "google/libphonenumber": "f7e3e88c92b905c8d6edb81f336dbe25edc05b52",
  "globalcitizen/php-iban": "c92138cb9ef9a25941c6466915b3bf23898de6a1",
  "dominicsayers/isemail": "cfeefc3f2f88cb195053f6a309fa4f640cd369b5",
  "gitleaks/gitleaks": "b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b",
  "Yelp/detect-secrets": "5e141933554a0b74e7341841f318be21e895339c",
} as const;
type Repo = keyof typeof COMMITS;

function show(repo: Repo, path: string): string {
  const gitDir = join(MIRRORS, `${repo.replace("/", "+")}/repo`);
  const proc = Bun.spawnSync(["git", `--git-dir=${gitDir}`, "show", `${COMMITS[repo]}:${path}`]);
  if (proc.exitCode !== 0) throw new Error(`git show ${repo} ${path}: ${proc.stderr.toString()}`);
  return proc.stdout.toString();
}

// Neutral carrier texts, so a value is met alone, in a sentence and in a config line. Written for this
// benchmark (the values are the sources'); chosen by the item's index, so the build is deterministic.
const CARRIERS = [
  (v: string) => v,
  (v: string) => `Please use ${v} for this one.`,
  (v: string) => `config:\n  value: "${v}"\n`,
  (v: string) => `Here are the details you asked for - ${v} - let me know if anything is missing.`,
];

function carried(
  type: PiiBenchType,
  value: string,
  index: number,
  source: string,
  split: Split,
): PiiBenchItem {
  const wrap = CARRIERS[index % CARRIERS.length] as (v: string) => string;
  const text = wrap(value);
  const start = text.indexOf(value);
  return { text, spans: [{ type, start, end: start + value.length }], source, split };
}

type Split = PiiBenchItem["split"];

// ---- presidio-research: generated sentences with labelled spans (faker values, many locales) ----
const PRESIDIO_TYPES: Record<string, PiiBenchType> = {
  PHONE_NUMBER: "phone",
  EMAIL_ADDRESS: "email",
  CREDIT_CARD: "credit_card",
  IBAN_CODE: "iban",
  US_SSN: "us_ssn",
  IP_ADDRESS: "ip_address",
};
interface PresidioSample {
  full_text: string;
  spans: { entity_type: string; start_position: number; end_position: number }[];
}

function presidioSamples(path: string, source: string, split: Split): PiiBenchItem[] {
  const samples = JSON.parse(show("microsoft/presidio-research", path)) as PresidioSample[];
  const items: PiiBenchItem[] = [];
  for (const s of samples) {
    // A driver's licence number is PII this scanner does not claim: its digits would count against it.
    if (s.spans.some((sp) => sp.entity_type === "US_DRIVER_LICENSE")) continue;
    const spans: PiiBenchSpan[] = [];
    for (const sp of s.spans) {
      const type = PRESIDIO_TYPES[sp.entity_type];
      if (type) spans.push({ type, start: sp.start_position, end: sp.end_position });
    }
    items.push({ text: s.full_text, spans, source, split });
  }
  return items;
}

// ---- presidio: its recognizers' unit tests, `("text", expected_len, ..., ((start, end), ...))` ----
const PRESIDIO_TESTS: Record<string, PiiBenchType> = {
  credit_card: "credit_card",
  iban: "iban",
  email: "email",
  phone: "phone",
  ip: "ip_address",
};
const PY_CASE = /\(\s*"((?:[^"\\\n]|\\.)*)"\s*,\s*(\d+)\s*,/g;

function presidioTestItems(): PiiBenchItem[] {
  const items: PiiBenchItem[] = [];
  for (const [file, type] of Object.entries(PRESIDIO_TESTS)) {
    const source = show("microsoft/presidio", `presidio-analyzer/tests/test_${file}_recognizer.py`);
    for (const m of source.matchAll(PY_CASE)) {
      const text = JSON.parse(`"${m[1]}"`) as string;
      const expected = Number(m[2]);
      // The case runs to the next case, comment or end of list; its first spans are the expected ones.
      const rest = source.slice(m.index + m[0].length).split(/\n\s*(?:\(|#|\])/)[0] ?? "";
      const pairs = [...rest.matchAll(/\((\d+),\s*(\d+)\)/g)].map((p) => [Number(p[1]), Number(p[2])]);
      const spans: PiiBenchSpan[] =
        pairs.length >= expected
          ? pairs.slice(0, expected).map(([start, end]) => ({ type, start: start ?? 0, end: end ?? 0 }))
          : [{ type, start: 0, end: text.length }];
      items.push({ text, spans: expected === 0 ? [] : spans, source: `presidio:test_${file}`, split: "dev" });
    }
  }
  return items;
}

// ---- php-iban: the registry's example IBAN of every country, compact, printed and lower case ----
function phpIbanItems(): PiiBenchItem[] {
  const lines = show("globalcitizen/php-iban", "registry.txt").split("\n").slice(1);
  const items: PiiBenchItem[] = [];
  let i = 0;
  for (const line of lines) {
    const iban = line.split("|")[7];
    if (!iban || !/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(iban)) continue;
    const printed = iban.replace(/(.{4})(?=.)/g, "$1 ");
    for (const value of [iban, printed, printed.toLowerCase()])
      items.push(carried("iban", value, i++, "php-iban:registry", "heldout"));
  }
  return items;
}

// ---- isemail: the addresses its test suite calls valid (category VALID, or valid but no DNS record) ----
function isemailItems(): PiiBenchItem[] {
  const xml = show("dominicsayers/isemail", "test/tests.xml");
  const items: PiiBenchItem[] = [];
  let i = 0;
  for (const [, body] of xml.matchAll(/<test id="\d+">([\s\S]*?)<\/test>/g)) {
    const address = /<address>([\s\S]*?)<\/address>/.exec(body ?? "")?.[1];
    const category = /<category>(\w+)<\/category>/.exec(body ?? "")?.[1];
    if (!address || (category !== "ISEMAIL_VALID_CATEGORY" && category !== "ISEMAIL_DNSWARN")) continue;
    const value = address.replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">");
    items.push(carried("email", value, i++, "isemail:tests", "heldout"));
  }
  return items;
}

// ---- detect-secrets: its plugin tests' payloads, flagged or not, for the providers this scanner claims ----
const SECRET_TESTS: Record<string, PiiBenchType> = {
  aws_key: "api_key",
  github_token: "api_key",
  gitlab_token: "api_key",
  stripe_key: "api_key",
  openai: "api_key",
  pypi_token: "api_key",
  sendgrid: "api_key",
  slack: "api_key",
  jwt: "jwt",
};

/** `('payload', True)` tuples of a pytest parametrize list; Slack's list has payloads only, all flagged. */
function parametrized(source: string, allFlagged: boolean): [string, boolean][] {
  const out: [string, boolean][] = [];
  const tuple = allFlagged
    ? /\(\s*\n?\s*u?'([^'\n]+)'\s*\n?\s*\)/g
    : /\(\s*\n?\s*u?'([^'\n]+)'\s*,\s*\n?\s*(True|False)\s*,?\s*(?:#[^\n]*)?\n?\s*\)/g;
  for (const m of source.matchAll(tuple)) out.push([m[1] as string, allFlagged || m[2] === "True"]);
  return out;
}

function detectSecretsItems(): PiiBenchItem[] {
  const items: PiiBenchItem[] = [];
  let i = 0;
  for (const [plugin, type] of Object.entries(SECRET_TESTS)) {
    const source = show("Yelp/detect-secrets", `tests/plugins/${plugin}_test.py`);
    for (const [payload, flagged] of parametrized(source, plugin === "slack")) {
      const src = `detect-secrets:${plugin}`;
      if (flagged) items.push(carried(type, payload, i++, src, "dev"));
      else items.push({ text: payload, spans: [], source: `${src}:negative`, split: "dev" });
    }
  }
  return items;
}

// ---- gitleaks: the literal true and false positives its rules are generated with ----
const GITLEAKS_RULES: Record<string, PiiBenchType> = {
  anthropic: "api_key",
  aws: "api_key",
  gcp: "api_key",
  github: "api_key",
  gitlab: "api_key",
  openai: "api_key",
  pypi: "api_key",
  sendgrid: "api_key",
  slack: "api_key",
  stripe: "api_key",
  jwt: "jwt",
};
// A Go string literal standing alone (not glued to a generated part with "+"), 16 characters or more.
const GO_LITERAL = /(?<![+]\s*)(?:"((?:[^"\\\n]|\\.){16,})"|`([^`]{16,})`)(?!\s*\+)/g;

function goLiterals(block: string): string[] {
  return [...block.matchAll(GO_LITERAL)].map((m) =>
    m[1] !== undefined ? (JSON.parse(`"${m[1]}"`) as string) : (m[2] as string),
  );
}

/**
 * The literals of a rule file's `tps` statements (its true positives), up to the next `fps` / `return`.
 * Its false-positive cases are left out: many are keys of the right shape that gitleaks allow-lists
 * (documented EXAMPLE keys, placeholders, a key of another rule), which a redactor should redact.
 */
function gitleaksPositives(go: string): string[] {
  const tps: string[] = [];
  let inside = false;
  for (const line of go.split("\n")) {
    if (/^\s*tps\b/.test(line)) inside = true;
    else if (/^\s*fps\b/.test(line)) inside = false;
    else if (/^\s*(?:return|})\s*/.test(line) && !/^\s*}\s*[,)]/.test(line)) inside = false;
    if (inside) tps.push(...goLiterals(line));
  }
  return tps;
}

function gitleaksItems(): PiiBenchItem[] {
  const items: PiiBenchItem[] = [];
  let i = 0;
  for (const [rule, type] of Object.entries(GITLEAKS_RULES)) {
    const tps = gitleaksPositives(show("gitleaks/gitleaks", `cmd/generate/config/rules/${rule}.go`));
    for (const t of tps) items.push(carried(type, t, i++, `gitleaks:${rule}`, "heldout"));
  }
  return items;
}

// ---- look-alike negatives: versions, dates, release numbers, module hashes ----
function lines(text: string, keep: (line: string) => boolean, max: number): string[] {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => /\d/.test(l) && !l.includes("@") && keep(l))
    .slice(0, max);
}

function negatives(repo: Repo, path: string, source: string, split: Split, max: number): PiiBenchItem[] {
  return lines(show(repo, path), (l) => l.length >= 12, max).map((text) => ({
    text,
    spans: [],
    source,
    split,
  }));
}

function build(): PiiBenchItem[] {
  const all: PiiBenchItem[] = [
    ...presidioSamples("tests/data/generated_large.json", "presidio-research:generated_large", "dev"),
    ...negatives("microsoft/presidio", "CHANGELOG.md", "presidio:changelog", "dev", 300),
    ...presidioTestItems(),
    ...presidioSamples("data/synth_dataset_v2.json", "presidio-research:synth_dataset_v2", "heldout"),
    ...phpIbanItems(),
    ...isemailItems(),
    ...detectSecretsItems(),
    ...gitleaksItems(),
    ...negatives(
      "google/libphonenumber",
      "release_notes.txt",
      "libphonenumber:release_notes",
      "heldout",
      400,
    ),
    ...negatives("gitleaks/gitleaks", "go.sum", "gitleaks:go.sum", "heldout", 200),
  ];
  const seen = new Set<string>();
  const corpus = new Set(projectCorpusTexts());
  return all.filter((item) => {
    if (seen.has(item.text) || corpus.has(item.text)) return false;
    seen.add(item.text);
    return true;
  });
}

/** The project's own PII corpus: any text of it found here is dropped (none was, when built). */
function projectCorpusTexts(): string[] {
  const corpus = JSON.parse(
    readFileSync(join(import.meta.dir, "../bench/guardrails-corpus/pii.json"), "utf8"),
  ) as { text: string }[];
  return corpus.map((i) => i.text);
}

if (import.meta.main) {
  const items = build();
  writeFileSync(
    OUT,
    Bun.gzipSync(new TextEncoder().encode(`${items.map((i) => JSON.stringify(i)).join("\n")}\n`)),
  );
  const count = new Map<string, number>();
  for (const i of items) count.set(`${i.split} ${i.source}`, (count.get(`${i.split} ${i.source}`) ?? 0) + 1);
  for (const [k, n] of [...count].sort()) console.log(`${k}: ${n}`);
}
