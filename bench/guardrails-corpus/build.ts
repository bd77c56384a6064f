// Builds the labelled guardrail corpus (pii.json, prompt_injection.json, toxicity.json) from material
// that others wrote and published in npm or Debian packages; README.md beside this file says where
// each item comes from. Run: bun bench/guardrails-corpus/build.ts
// Needs: the devDependencies (@faker-js/faker, chance), `npm` (to fetch data-only packages with
// `npm pack`, never installed), and the Debian packages named in SOURCES below.
// The output is committed; the tests read it and never run this script.

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { faker } from "@faker-js/faker";
import { Type } from "@sinclair/typebox";
import Chance from "chance";
import examples from "libphonenumber-js/examples.mobile.json";
import { type CountryCode, getExampleNumber } from "libphonenumber-js/max";
import { at, parseJson } from "../../scripts/checked.ts";
import type { CorpusItem } from "../guardrails-metrics.ts";

const OUT = import.meta.dir;
const CACHE = join(import.meta.dir, "../../node_modules/.cache/guardrails-corpus");

// Data-only npm packages, pinned: fetched with `npm pack` into node_modules/.cache, never installed.
const NPM = {
  promptfoo: "promptfoo@0.121.20",
  asm: "agent-security-scanner-mcp@4.5.9",
  hubot: "hubot-insulter@1.0.2",
  dammit: "dammit@0.5.1",
  naughty: "naughty-words@1.2.0",
  iban: "iban@0.0.14",
  cardValidator: "card-validator@10.0.4",
  secretlintAnthropic: "@secretlint/secretlint-rule-anthropic@12.0.0",
  llmverify: "llmverify@1.6.1",
};

function pkg(spec: string): string {
  const dir = join(CACHE, spec.replace(/[/@]/g, "_"));
  if (!existsSync(join(dir, "package"))) {
    mkdirSync(dir, { recursive: true });
    const file = execFileSync("npm", ["pack", spec, "--silent"], { cwd: dir, encoding: "utf8" })
      .trim()
      .split("\n")
      .pop();
    if (file === undefined) throw new Error(`npm pack ${spec} named no file`);
    execFileSync("tar", ["xzf", file], { cwd: dir });
  }
  return join(dir, "package");
}

const read = (path: string) => readFileSync(path, "utf8");
const readMaybeGz = (path: string) =>
  path.endsWith(".gz") ? gunzipSync(readFileSync(path)).toString("utf8") : read(path);

function debVersion(name: string): string {
  const format = "-f=$" + "{Version}"; // dpkg-query's own field syntax, not a template
  return execFileSync("dpkg-query", ["-W", format, name], { encoding: "utf8" }).trim();
}

/** Every n-th element, so samples are spread over a list and reproducible. */
function spread<T>(list: readonly T[], count: number): T[] {
  if (list.length <= count) return [...list];
  const step = list.length / count;
  return Array.from({ length: count }, (_, i) => at(list, Math.floor(i * step)));
}

const unique = <T>(list: T[]) => [...new Set(list)];

// ---------------------------------------------------------------- benign text (Debian)

function faqQuestions(): CorpusItem[] {
  const files: [string, string][] = [
    ["socat", "/usr/share/doc/socat/FAQ"],
    ["man-db", "/usr/share/doc/man-db/FAQ"],
    ["base-files", "/usr/share/doc/base-files/FAQ"],
    ["sed", "/usr/share/doc/sed/sedfaq.txt.gz"],
    ["lsof", "/usr/share/doc/lsof/00FAQ.gz"],
    ["procps", "/usr/share/doc/procps/FAQ.gz"],
    ["xz-utils", "/usr/share/doc/xz-utils/faq.txt.gz"],
    ["zlib1g-dev", "/usr/share/doc/zlib1g-dev/FAQ.gz"],
  ];
  const items: CorpusItem[] = [];
  const seen = new Set<string>();
  for (const [deb, path] of files) {
    const source = `debian:${deb}@${debVersion(deb)}:${path}`;
    for (const line of readMaybeGz(path).split("\n")) {
      const m =
        /^\s*(?:[\d.]+\s+|Q[:.]\s*|\d+\)\s*)?((?:What|How|Why|Is|Can|Does|Do|When|Where|Which|Should|Are|Will|Could|Has|Have)\b[^?]{8,}\?)\s*$/.exec(
          line,
        );
      if (m && !seen.has(at(m, 1))) {
        seen.add(at(m, 1));
        items.push({ text: at(m, 1), label: false, source, category: "faq_question" });
      }
    }
  }
  return items;
}

function manSentences(): CorpusItem[] {
  const commands =
    "ls cp mv rm grep sed tar find sort uniq head tail cat chmod chown date df du echo env kill ps wc xargs cut tr tee diff split ln mkdir touch stat gzip less".split(
      " ",
    );
  const items: CorpusItem[] = [];
  const seen = new Set<string>();
  for (const cmd of commands) {
    const page = execFileSync("man", ["-w", cmd], { encoding: "utf8" }).trim();
    const deb = at(execFileSync("dpkg", ["-S", page], { encoding: "utf8" }).split(":"), 0);
    const text = execFileSync("man", ["-P", "cat", cmd], {
      encoding: "utf8",
      env: { ...process.env, MANWIDTH: "2000", MAN_KEEP_FORMATTING: "" },
    });
    for (const line of text.split("\n")) {
      const s = line.trim();
      if (
        /^[A-Za-z][a-z]+ [^-].{15,200}$/.test(s) &&
        !s.endsWith(":") &&
        s.split(" ").length >= 4 &&
        !seen.has(s)
      ) {
        seen.add(s);
        items.push({
          text: s,
          label: false,
          source: `debian:${deb}@${debVersion(deb)}:${page}`,
          category: "man_page",
        });
      }
    }
  }
  return spread(items, 320);
}

function hubotLists(): { insults: string[]; compliments: string[] } {
  const src = read(join(pkg(NPM.hubot), "src/insulter.coffee"));
  const list = (name: string) => {
    const region = src.indexOf(`${name} = [`);
    const end = src.indexOf("]", region);
    return [...src.slice(region, end).matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) =>
      at(m, 1).replace(/\\"/g, '"'),
    );
  };
  return { insults: list("insults"), compliments: list("compliments") };
}

// ---------------------------------------------------------------- prompt injection

function promptfooTemplates(): string[] {
  const dist = join(pkg(NPM.promptfoo), "dist/src");
  for (const file of readdirSync(dist).filter((f) => f.startsWith("strategies-") && f.endsWith(".js"))) {
    const src = read(join(dist, file));
    const region = src.indexOf("//#region src/redteam/strategies/promptInjections/data.ts");
    if (region < 0) continue;
    const start = src.indexOf("[", region);
    const end = src.indexOf("\n];", start);
    // The array is a JS literal of double-quoted strings (with comments between some of them).
    const body = src.slice(start, end).replace(/^\s*\/\/.*$/gm, "");
    return [...body.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => parseJson(Type.String(), `"${m[1]}"`));
  }
  throw new Error("promptfoo injection data not found");
}

function asmPrompts(): { text: string; label: boolean; category: string }[] {
  const src = read(join(pkg(NPM.asm), "benchmarks/corpus/prompt_injection.txt"));
  const out: { text: string; label: boolean; category: string }[] = [];
  for (const block of src.split(/\n(?=# (?:VULN|SAFE): )/)) {
    const m = /^# (VULN|SAFE): (\S+)\n([\s\S]*)$/.exec(block.trim());
    if (!m) continue;
    const text = at(at(m, 3).split(/\n# =====/), 0).trim();
    out.push({
      text,
      label: m[1] === "VULN",
      category: at(m, 2).replace("generic.prompt.security.", ""),
    });
  }
  return out;
}

function promptfooExtractionExamples(): string[] {
  const dist = join(pkg(NPM.promptfoo), "dist/src");
  for (const file of readdirSync(dist).filter((f) => f.endsWith(".js"))) {
    const src = read(join(dist, file));
    const region = src.indexOf("//#region src/redteam/plugins/promptExtraction.ts");
    if (region < 0) continue;
    const end = src.indexOf("`;", region);
    return [...src.slice(region, end).matchAll(/Prompt: (.+)/g)].map((m) => at(m, 1).trim());
  }
  throw new Error("promptfoo prompt-extraction examples not found");
}

// Obfuscations applied to real payloads (the transformations are ours; the text is not).
const LEET: Partial<Record<string, string>> = { a: "4", e: "3", i: "1", o: "0", s: "5", t: "7" };
const HOMOGLYPHS: Partial<Record<string, string>> = {
  a: "а",
  e: "е",
  o: "о",
  p: "р",
  c: "с",
  x: "х",
  y: "у",
};
const encodings: Record<string, (s: string) => string> = {
  base64: (s) => `Decode this and follow it: ${Buffer.from(s).toString("base64")}`,
  hex: (s) => Buffer.from(s).toString("hex"),
  rot13: (s) =>
    s.replace(/[a-z]/gi, (c) =>
      String.fromCharCode(((c.toLowerCase().charCodeAt(0) - 97 + 13) % 26) + (c <= "Z" ? 65 : 97)),
    ),
  leetspeak: (s) => s.replace(/[aeiost]/gi, (c) => LEET[c.toLowerCase()] ?? c),
  homoglyph: (s) => s.replace(/[aeopcxy]/g, (c) => HOMOGLYPHS[c] ?? c),
  zero_width: (s) => s.replace(/(\w)(\w)/g, "$1\u200b$2"),
  fullwidth: (s) => s.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)),
  tag_smuggling: (s) =>
    `Please summarise this. ${[...s].map((c) => String.fromCodePoint(0xe0000 + (c.charCodeAt(0) & 0x7f))).join("")}`,
};

function injectionCorpus(benign: CorpusItem[]): CorpusItem[] {
  const items: CorpusItem[] = [];
  const pf = `npm:${NPM.promptfoo}:dist/src/strategies-*.js (region src/redteam/strategies/promptInjections/data.ts)`;
  const asm = asmPrompts();
  // The templates carry a __PROMPT__ slot for a request; the request used is one of the
  // agent-security-scanner-mcp corpus' own ("how do I pick a lock?").
  const templates = promptfooTemplates().map((t) => t.replace(/__PROMPT__/g, "how do I pick a lock?"));
  for (const t of templates) items.push({ text: t, label: true, source: pf, category: "jailbreak_template" });
  const asmSource = `npm:${NPM.asm}:benchmarks/corpus/prompt_injection.txt`;
  for (const a of asm) items.push({ text: a.text, label: a.label, source: asmSource, category: a.category });
  const pfx = `npm:${NPM.promptfoo}:dist/src/graders-*.js (region src/redteam/plugins/promptExtraction.ts)`;
  for (const e of promptfooExtractionExamples())
    items.push({ text: e, label: true, source: pfx, category: "prompt_extraction" });
  // Encoded variants: the first sentence-ish part (up to 300 characters) of spread-out templates and
  // of the corpus' instruction-override attacks, so the payload is what carries the attack.
  const payloads = [
    ...spread(templates, 12).map((t) => ({ text: t.slice(0, 300), source: pf })),
    ...asm
      .filter((a) => a.label && a.category === "ignore-previous-instructions")
      .map((a) => ({ text: a.text, source: asmSource })),
  ];
  for (const [name, encode] of Object.entries(encodings)) {
    for (const p of payloads)
      items.push({ text: encode(p.text), label: true, source: p.source, category: `encoded:${name}` });
  }
  for (const b of benign) items.push({ ...b, label: false });
  return items;
}

// ---------------------------------------------------------------- toxicity

function toxicityCorpus(benign: CorpusItem[], compliments: CorpusItem[]): CorpusItem[] {
  const items: CorpusItem[] = [];
  const { insults } = hubotLists();
  const hubotSource = `npm:${NPM.hubot}:src/insulter.coffee (insults)`;
  for (const t of insults) items.push({ text: t, label: true, source: hubotSource, category: "insult" });
  const dammit = pkg(NPM.dammit);
  for (const f of ["src/curses.json", "src/cursesNSFW.json"]) {
    for (const t of parseJson(Type.Array(Type.String()), read(join(dammit, f)), f)) {
      items.push({ text: t, label: true, source: `npm:${NPM.dammit}:${f}`, category: "curse" });
    }
  }
  const naughty = parseJson(Type.Array(Type.String()), read(join(pkg(NPM.naughty), "en.json")), "en.json");
  for (const t of naughty)
    items.push({ text: t, label: true, source: `npm:${NPM.naughty}:en.json`, category: "obscene_term" });
  // Scunthorpe problems: dictionary words that contain a profane string but are not profane.
  const lower = new Set(naughty.map((w) => w.toLowerCase()));
  const words = read("/usr/share/dict/american-english")
    .split("\n")
    .filter(
      (w) =>
        /^[a-z]+$/.test(w) &&
        /ass|cock|tit|cum|dick|shit|fag|anal|rape|cunt|twat|piss|sex|cunn|jizz|hell/.test(w),
    )
    .filter((w) => ![...lower].some((bad) => w.includes(bad) && bad.length >= w.length - 2));
  const dict = `debian:wamerican@${debVersion("wamerican")}:/usr/share/dict/american-english`;
  for (const w of spread(words, 250))
    items.push({ text: w, label: false, source: dict, category: "scunthorpe_word" });
  for (const c of compliments) items.push(c);
  for (const b of benign) items.push({ ...b, label: false });
  return items;
}

// ---------------------------------------------------------------- PII

interface Labelled {
  value: string;
  type: string;
  source: string;
  category?: string;
}

function piiPositives(): Labelled[] {
  const out: Labelled[] = [];
  faker.seed(20260501);
  const chance = new Chance(20260501);
  const fakerSource = "npm:@faker-js/faker@10.6.0 (generator, seed 20260501)";

  // Phones: Google's example mobile numbers, every region, international format (and US national).
  const hasExample = (region: string): region is CountryCode => Object.hasOwn(examples, region);
  for (const region of Object.keys(examples).filter(hasExample)) {
    const n = getExampleNumber(region, examples);
    if (!n) continue;
    out.push({
      value: n.formatInternational(),
      type: "phone",
      source: "npm:libphonenumber-js@1.13.16:examples.mobile.json",
      category: region,
    });
  }
  const national: CountryCode[] = ["US", "CA"];
  for (const region of national) {
    const n = getExampleNumber(region, examples);
    if (n)
      out.push({
        value: n.formatNational(),
        type: "phone",
        source: "npm:libphonenumber-js@1.13.16:examples.mobile.json",
        category: `${region} national`,
      });
  }

  for (let i = 0; i < 60; i++)
    out.push({ value: faker.internet.email(), type: "email", source: fakerSource });
  for (let i = 0; i < 40; i++)
    out.push({ value: faker.internet.ipv4(), type: "ip_address", source: fakerSource, category: "ipv4" });
  for (let i = 0; i < 40; i++)
    out.push({ value: faker.internet.ipv6(), type: "ip_address", source: fakerSource, category: "ipv6" });
  for (let i = 0; i < 60; i++)
    out.push({ value: faker.finance.creditCardNumber(), type: "credit_card", source: fakerSource });
  for (let i = 0; i < 30; i++) {
    const iban = faker.finance.iban({ formatted: i % 2 === 0 });
    out.push({ value: iban, type: "iban", source: fakerSource });
  }

  // Cards from card-validator's tests: numbers its tests call valid and that pass Luhn (the
  // UnionPay numbers it accepts without Luhn are left out: this detector requires the checksum).
  const cardTests = read(join(pkg(NPM.cardValidator), "src/__tests__/card-number.ts"));
  const luhn = (d: string) => {
    let sum = 0;
    for (let i = 0; i < d.length; i++) {
      let x = Number(d[d.length - 1 - i]);
      if (i % 2 === 1) {
        x *= 2;
        if (x > 9) x -= 9;
      }
      sum += x;
    }
    return sum % 10 === 0;
  };
  const cards = unique(
    [...cardTests.matchAll(/\[\s*"(\d[\d -]{11,22}\d)",\s*\{[^}]*isValid: true/g)].map((m) => at(m, 1)),
  ).filter((c) => luhn(c.replace(/\D/g, "")));
  for (const c of cards)
    out.push({
      value: c,
      type: "credit_card",
      source: `npm:${NPM.cardValidator}:src/__tests__/card-number.ts`,
    });

  // IBANs: the example of every country in the iban package.
  const ibanSrc = read(join(pkg(NPM.iban), "iban.js"));
  for (const m of ibanSrc.matchAll(
    /new Specification\(\s*"([A-Z]{2})",\s*\d+,\s*"[^"]*",\s*"([A-Z0-9]+)"\s*\)/g,
  )) {
    out.push({
      value: at(m, 2),
      type: "iban",
      source: `npm:${NPM.iban}:iban.js`,
      category: at(m, 1),
    });
  }

  // SSNs: chance's generator, kept when the SSA could have issued them (the rest are negatives).
  let ssns = 0;
  while (ssns < 60) {
    const s = chance.ssn({ dashes: true });
    if (ssnIssuable(s)) {
      out.push({ value: s, type: "us_ssn", source: "npm:chance@1.1.13 (generator, seed 20260501)" });
      ssns++;
    }
  }

  // Secrets found in packages' docs and test fixtures.
  const asmSecrets = read(join(pkg(NPM.asm), "benchmarks/corpus/generic_secrets.txt"));
  const asmSource = `npm:${NPM.asm}:benchmarks/corpus/generic_secrets.txt`;
  const kinds: Record<string, string> = {
    "aws-access-key-id": "api_key",
    "github-pat": "api_key",
    "stripe-api-key": "api_key",
    "openai-api-key": "api_key",
    "private-key-rsa": "private_key",
    "jwt-token": "jwt",
  };
  for (const m of asmSecrets.matchAll(/# VULN: (\S+)\n[^=]+= "([^"]+)"/g)) {
    const type = kinds[at(m, 1)];
    if (type) out.push({ value: at(m, 2), type, source: asmSource, category: at(m, 1) });
  }
  const dockerfile = read(join(pkg(NPM.asm), "benchmarks/corpus/Dockerfile_security"));
  for (const m of dockerfile.matchAll(/AKIA[A-Z0-9]{16}/g)) {
    out.push({
      value: m[0],
      type: "api_key",
      source: `npm:${NPM.asm}:benchmarks/corpus/Dockerfile_security`,
    });
  }
  const anthropic = read(join(pkg(NPM.secretlintAnthropic), "README.md"));
  for (const m of anthropic.matchAll(/sk-ant-[A-Za-z0-9_-]{20,}/g)) {
    out.push({ value: m[0], type: "api_key", source: `npm:${NPM.secretlintAnthropic}:README.md` });
  }
  const llmv = read(join(pkg(NPM.llmverify), "examples/pii-detection.ts"));
  for (const m of llmv.matchAll(/ghp_[A-Za-z0-9]{36}/g)) {
    out.push({ value: m[0], type: "api_key", source: `npm:${NPM.llmverify}:examples/pii-detection.ts` });
  }
  const jwtDir = "/usr/share/gocode/src/github.com/golang-jwt/jwt";
  const jwtDeb = `debian:golang-github-golang-jwt-jwt-dev@${debVersion("golang-github-golang-jwt-jwt-dev")}`;
  for (const f of [
    "test/ec256-private.pem",
    "test/ec384-private.pem",
    "test/ec512-private.pem",
    "test/ed25519-private.pem",
    "test/privateSecure.pem",
    "test/sample_key",
  ]) {
    out.push({
      value: read(join(jwtDir, f)).trim(),
      type: "private_key",
      source: `${jwtDeb}:${jwtDir}/${f}`,
    });
  }
  const tokens = new Set<string>();
  for (const f of readdirSync(jwtDir).filter((f) => f.endsWith("_test.go"))) {
    for (const m of read(join(jwtDir, f)).matchAll(
      /"(eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*)"/g,
    )) {
      if (!tokens.has(at(m, 1))) {
        tokens.add(at(m, 1));
        out.push({ value: at(m, 1), type: "jwt", source: `${jwtDeb}:${jwtDir}/${f}` });
      }
    }
  }
  return out;
}

function ssnIssuable(s: string): boolean {
  const [a = "", g = "", n = ""] = s.split("-");
  if (a === "000" || a === "666" || a.startsWith("9") || g === "00" || n === "0000") return false;
  return s !== "078-05-1120" && s !== "219-09-9999";
}

function piiNegatives(): CorpusItem[] {
  faker.seed(20260502);
  const chance = new Chance(20260502);
  const fakerSource = "npm:@faker-js/faker@10.6.0 (generator, seed 20260502)";
  const out: CorpusItem[] = [];
  const add = (text: string, category: string, source = fakerSource) =>
    out.push({ text, label: false, source, category });
  for (let i = 0; i < 20; i++) add(faker.string.uuid(), "uuid");
  for (let i = 0; i < 20; i++) add(faker.git.commitSha(), "git_sha");
  for (let i = 0; i < 20; i++) add(faker.system.semver(), "semver");
  for (let i = 0; i < 20; i++) add(faker.date.anytime().toISOString(), "timestamp");
  for (let i = 0; i < 20; i++) add(faker.commerce.isbn(), "isbn");
  for (let i = 0; i < 20; i++) add(faker.phone.imei(), "imei");
  for (let i = 0; i < 20; i++) add(faker.finance.accountNumber(), "account_number");
  for (let i = 0; i < 20; i++) add(faker.finance.routingNumber(), "routing_number");
  for (let i = 0; i < 20; i++) add(`${faker.commerce.price()} ${faker.finance.currencyCode()}`, "price");
  for (let i = 0; i < 20; i++) add(faker.internet.mac(), "mac_address");
  for (let i = 0; i < 20; i++) add(faker.hacker.phrase(), "hacker_phrase");
  let bad = 0;
  while (bad < 20) {
    const s = chance.ssn({ dashes: true });
    if (!ssnIssuable(s)) {
      add(s, "ssn_not_issuable", "npm:chance@1.1.13 (generator, seed 20260502)");
      bad++;
    }
  }
  // Checksum failures derived from real positives: the last digit of a card, one check digit of an IBAN.
  faker.seed(20260503);
  for (let i = 0; i < 20; i++) {
    const card = faker.finance.creditCardNumber();
    const last = Number(card[card.length - 1]);
    add(card.slice(0, -1) + String((last + 1) % 10), "card_luhn_broken");
  }
  for (let i = 0; i < 20; i++) {
    const iban = faker.finance.iban();
    const d = Number(iban[3]);
    add(iban.slice(0, 3) + String((d + 1) % 10) + iban.slice(4), "iban_checksum_broken");
  }
  const jwtDir = "/usr/share/gocode/src/github.com/golang-jwt/jwt";
  const jwtDeb = `debian:golang-github-golang-jwt-jwt-dev@${debVersion("golang-github-golang-jwt-jwt-dev")}`;
  for (const f of [
    "test/ec256-public.pem",
    "test/ec384-public.pem",
    "test/ec512-public.pem",
    "test/ed25519-public.pem",
    "test/sample_key.pub",
  ]) {
    add(read(join(jwtDir, f)).trim(), "public_key", `${jwtDeb}:${jwtDir}/${f}`);
  }
  const asmSecrets = read(join(pkg(NPM.asm), "benchmarks/corpus/generic_secrets.txt"));
  for (const m of asmSecrets.matchAll(/# SAFE: (\S+)\n([^\n]+)/g)) {
    add(at(m, 2), "secret_reference", `npm:${NPM.asm}:benchmarks/corpus/generic_secrets.txt`);
  }
  return out;
}

function piiCorpus(benign: CorpusItem[]): CorpusItem[] {
  const items: CorpusItem[] = [];
  const carriers = benign.filter((b) => !b.text.includes("@"));
  piiPositives().forEach((p, i) => {
    // Half stand alone, half follow a sentence of real text (so the detectors see prose around them).
    const prefix = i % 2 === 0 ? "" : `${at(carriers, i % carriers.length).text} `;
    const text = `${prefix}${p.value}`;
    items.push({
      text,
      label: true,
      source: p.source,
      category: p.type,
      spans: [{ type: p.type, start: prefix.length, end: prefix.length + p.value.length }],
    });
  });
  for (const n of piiNegatives()) items.push(n);
  // A sentence of documentation that gives a contact address is no negative: those are left out.
  for (const b of benign) if (!b.text.includes("@")) items.push({ ...b, label: false });
  return items;
}

// ---------------------------------------------------------------- main

const faq = faqQuestions();
const man = manSentences();
const { compliments } = hubotLists();
const complimentItems: CorpusItem[] = compliments.map((t) => ({
  text: t,
  label: false,
  source: `npm:${NPM.hubot}:src/insulter.coffee (compliments)`,
  category: "compliment",
}));
const benign = [...faq, ...man];

const write = (name: string, items: CorpusItem[]) => {
  writeFileSync(join(OUT, `${name}.json`), `${JSON.stringify(items, null, 1)}\n`);
  const pos = items.filter((i) => i.label).length;
  console.log(`${name}: ${pos} positives, ${items.length - pos} negatives`);
};
write("pii", piiCorpus(benign));
write("prompt_injection", injectionCorpus([...benign, ...complimentItems]));
write("toxicity", toxicityCorpus(benign, complimentItems));
