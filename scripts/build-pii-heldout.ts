// Builds bench/guard-datasets/pii-heldout.jsonl.gz: PII texts with labelled spans, from public
// repositories the PII detectors were never built against (sources and licences in
// bench/guard-datasets/README.md). Every repository is read at a fixed commit from a local bare mirror
// (`PII_MIRRORS`, default /work/.mirror/<owner>+<name>/repo), so the file is rebuilt byte for byte.
//   bun scripts/build-pii-heldout.ts
// The split is by source: "dev" items may be looked at while tuning the detectors, "heldout" never.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PiiBenchItem, PiiBenchSpan, PiiBenchType } from "../bench/guard-datasets/pii-load.ts";
import { rng } from "./make-tiny-gguf.ts";

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

// ---- gitleaks: the true positives its rules are tested with (its false positives are left out) ----
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
// The rule files are Go: they are tokenized (string literals, comments, brackets, commas) rather than
// matched line by line, because a literal may span lines (raw strings holding a whole config file) and
// a line may hold several literals glued to generated parts ("sk-ant-api03-"+secrets.NewSecret(...)).
type GoToken = { kind: "string"; value: string } | { kind: "comment" } | { kind: "char"; value: string };

function goTokens(go: string): GoToken[] {
  const tokens: GoToken[] = [];
  let i = 0;
  while (i < go.length) {
    const c = go.charAt(i);
    if (c === "/" && go[i + 1] === "/") {
      const nl = go.indexOf("\n", i);
      i = nl < 0 ? go.length : nl;
      tokens.push({ kind: "comment" });
    } else if (c === "/" && go[i + 1] === "*") {
      i = go.indexOf("*/", i + 2) + 2;
      tokens.push({ kind: "comment" });
    } else if (c === "`") {
      const close = go.indexOf("`", i + 1);
      tokens.push({ kind: "string", value: go.slice(i + 1, close) });
      i = close + 1;
    } else if (c === '"') {
      let j = i + 1;
      while (go[j] !== '"') j += go[j] === "\\" ? 2 : 1;
      tokens.push({ kind: "string", value: JSON.parse(go.slice(i, j + 1)) as string });
      i = j + 1;
    } else {
      if (!/\s/.test(c)) tokens.push({ kind: "char", value: c });
      i++;
    }
  }
  return tokens;
}

const isChar = (t: GoToken | undefined, c: string) => t?.kind === "char" && t.value === c;

/** `tps :=` or `tps =` starts at token `i` (not `tps` as an argument, nor inside a longer name). */
function tpsAssignment(tokens: readonly GoToken[], i: number): boolean {
  const before = tokens[i - 1];
  if (before?.kind === "char" && /[\w.]/.test(before.value)) return false;
  return (
    isChar(tokens[i], "t") &&
    isChar(tokens[i + 1], "p") &&
    isChar(tokens[i + 2], "s") &&
    (isChar(tokens[i + 3], "=") || (isChar(tokens[i + 3], ":") && isChar(tokens[i + 4], "=")))
  );
}

// ---- the values gitleaks generates at test time, generated here from the same definitions ----
// gitleaks' utils name character classes (utils/patterns.go) and secrets.NewSecret generates a string
// from a pattern; the patterns its rules pass are sequences of literals and classes with a fixed count,
// which is all this generator reads. A pattern with an open count ("{17,}") is not generated: the value
// is then left out (gitleaks' JWT samples, "ey" and random letters, are no RFC 7519 token anyway).
const CHARSET_HELPERS: Record<string, string> = {
  Numeric: "[0-9]",
  Hex: "[a-f0-9]",
  AlphaNumeric: "[a-z0-9]",
  AlphaNumericExtendedShort: "[a-z0-9_-]",
  AlphaNumericExtended: "[a-z0-9=_\\-]",
  AlphaNumericExtendedLong: "[a-z0-9\\/=_\\+\\-]",
};

const WORD = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";

/** The characters of a bracket class's body ("a-z0-9_\-"). */
function classChars(body: string): string {
  let chars = "";
  for (let i = 0; i < body.length; i++) {
    const c = body.charAt(i);
    if (c === "\\") {
      const e = body.charAt(++i);
      chars += e === "w" ? WORD : e;
    } else if (body[i + 1] === "-" && i + 2 < body.length) {
      const to = body.charCodeAt(i + 2);
      for (let k = c.charCodeAt(0); k <= to; k++) chars += String.fromCharCode(k);
      i += 2;
    } else {
      chars += c;
    }
  }
  return chars;
}

/** One atom of a pattern at `i`: its characters and where it ends; undefined for anything else. */
function atom(pattern: string, i: number): [chars: string, next: number] | undefined {
  const c = pattern.charAt(i);
  if (c === "[") {
    const close = pattern.indexOf("]", i + 1);
    return [classChars(pattern.slice(i + 1, close)), close + 1];
  }
  if (c === "\\") return [pattern[i + 1] === "w" ? WORD : pattern.charAt(i + 1), i + 2];
  if ("()|*+?.^${".includes(c)) return undefined;
  return [c, i + 1];
}

/** A string matching `pattern` (literals and classes with fixed counts), or undefined for any other. */
function generate(pattern: string, random: () => number): string | undefined {
  let out = "";
  let i = 0;
  while (i < pattern.length) {
    const a = atom(pattern, i);
    if (!a || a[0] === "") return undefined;
    const [chars, next] = a;
    i = next;
    let count = 1;
    const quantifier = /^\{(\d+)\}/.exec(pattern.slice(i));
    if (quantifier) {
      count = Number(quantifier[1]);
      i += quantifier[0].length;
    } else if (/^[{*+?]/.test(pattern.slice(i))) {
      return undefined;
    }
    for (let k = 0; k < count; k++) out += chars[Math.floor(random() * chars.length)];
  }
  return out;
}

// ---- a small evaluator of the Go expressions `tps` is built from ----
type Value = { kind: "string"; value: string | undefined } | { kind: "list"; values: (string | undefined)[] };

const textOf = (v: Value | undefined) => (v?.kind === "string" ? v.value : undefined);
const valuesOf = (v: Value): (string | undefined)[] => (v.kind === "list" ? v.values : [v.value]);

/** What a call evaluates to: gitleaks' helpers as its utils and secrets packages define them. */
function evalCall(fn: string, args: Value[], random: () => number): Value {
  const str = (value: string | undefined): Value => ({ kind: "string", value });
  if (fn === "append") return { kind: "list", values: args.slice(1).flatMap(valuesOf) };
  // GenerateSampleSecret(s)(identifier, secret): the secret, in carriers of gitleaks' own.
  if (fn === "GenerateSampleSecrets") return { kind: "list", values: [textOf(args[1])] };
  if (fn === "GenerateSampleSecret") return str(textOf(args[1]));
  const helper = CHARSET_HELPERS[fn];
  if (helper !== undefined) return str(`${helper}{${textOf(args[0])}}`);
  if (fn === "NewSecret") {
    const pattern = textOf(args[0]);
    return str(pattern === undefined ? undefined : generate(pattern, random));
  }
  if (fn === "Sprintf") {
    const format = textOf(args[0]);
    const parts = args.slice(1).map(textOf);
    if (format === undefined || parts.includes(undefined)) return str(undefined);
    let k = 0;
    return str(format.replace(/%s/g, () => parts[k++] ?? ""));
  }
  return str(undefined);
}

class TpsReader {
  constructor(
    readonly tokens: readonly GoToken[],
    public at: number,
    readonly random: () => number,
  ) {}

  private peek(c: string): boolean {
    return isChar(this.tokens[this.at], c);
  }

  private skipComments(): void {
    while (this.tokens[this.at]?.kind === "comment") this.at++;
  }

  private name(): string {
    let name = "";
    for (
      let t = this.tokens[this.at];
      t?.kind === "char" && /[\w.[\]]/.test(t.value);
      t = this.tokens[this.at]
    ) {
      name += t.value;
      this.at++;
    }
    return name;
  }

  private args(close: string): Value[] {
    const args: Value[] = [];
    this.skipComments();
    while (!this.peek(close)) {
      args.push(this.expr());
      this.skipComments();
      if (this.peek(",")) this.at++;
      this.skipComments();
    }
    this.at++;
    return args;
  }

  private primary(): Value {
    this.skipComments();
    const t = this.tokens[this.at];
    if (t?.kind === "string") {
      this.at++;
      return { kind: "string", value: t.value };
    }
    const name = this.name();
    if (this.peek("{")) {
      this.at++;
      return { kind: "list", values: this.args("}").flatMap(valuesOf) };
    }
    // A variable (`tps` itself in append(tps, ...)): its values were taken where it was assigned.
    if (!this.peek("(")) return { kind: "list", values: [] };
    this.at++;
    const args = this.args(")");
    if (this.peek(".")) this.at += 3; // a spread, "..."
    return evalCall(name.replace(/^.*\./, ""), args, this.random);
  }

  expr(): Value {
    let left = this.primary();
    while (this.peek("+")) {
      this.at++;
      const l = textOf(left);
      const r = textOf(this.primary());
      left = { kind: "string", value: l === undefined || r === undefined ? undefined : l + r };
    }
    return left;
  }
}

/** FNV-1a of a rule file's name: its generator's seed. */
function seedOf(rule: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < rule.length; i++) h = Math.imul(h ^ rule.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * The true positives of a rule file, as gitleaks' tests build them: the `tps` lists' literals, the
 * secret (not the identifier) of utils.GenerateSampleSecret(s), and the parts gitleaks generates at test
 * time generated here from the same class definitions (seeded). Each value is taken once (gitleaks
 * wraps it in ~25 config and code carriers; this benchmark's four carriers are used instead).
 * Commented-out cases and the `fps` lists are not read. `undefined`: a value that cannot be generated.
 */
export function gitleaksPositives(go: string, rule: string): (string | undefined)[] {
  const tokens = goTokens(go);
  // Seeded per rule file, so a rebuild gives the same bytes.
  const random = rng(seedOf(rule));
  const tps: (string | undefined)[] = [];
  for (let i = 0; i < tokens.length; i++) {
    if (!tpsAssignment(tokens, i)) continue;
    let k = i + 3;
    while (!isChar(tokens[k], "=")) k++;
    const reader = new TpsReader(tokens, k + 1, random);
    tps.push(...valuesOf(reader.expr()));
    i = reader.at - 1;
  }
  return tps;
}

// gitleaks' examples are code and config lines labelled for their secret only: an address or a
// loopback IP beside it ("curl http://127.0.0.1:8080 ...") is not labelled, so not scored.
const SECRET_TYPES: PiiBenchType[] = ["api_key", "jwt", "private_key"];

// gitleaks' gcp-service-account rule flags a key file by its `"type": "service_account"` line: that
// line is the rule's only example and holds no credential (the file's key is a PEM block, which the
// private_key detector finds), so it is not labelled as one.
const NOT_A_CREDENTIAL = new Set(['"type": "service_account"']);

function gitleaksItems(): PiiBenchItem[] {
  const items: PiiBenchItem[] = [];
  let i = 0;
  for (const [rule, type] of Object.entries(GITLEAKS_RULES)) {
    const go = show("gitleaks/gitleaks", `cmd/generate/config/rules/${rule}.go`);
    for (const t of gitleaksPositives(go, rule))
      if (t !== undefined && !NOT_A_CREDENTIAL.has(t))
        items.push({ ...carried(type, t, i++, `gitleaks:${rule}`, "heldout"), labels: SECRET_TYPES });
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
