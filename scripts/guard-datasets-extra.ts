// The second round of guard-classifier sources (issue 31): chosen for variety and for hard negatives,
// so a source held out in the leave-one-source-out bench (bench/guard-loso.ts) is unlike the others.
// Read from local mirrors like scripts/build-guard-datasets.ts; written to
// bench/guard-datasets/extra-{benign,injection,toxicity}.jsonl.gz. Sources and licences: that
// folder's README.
//
// - injection: PurpleLlama CyberSecEval direct prompt injections (English and 16 machine-translated
//   languages); JailbreakBench artifacts (PAIR's persuasive stories, GCG's adversarial suffixes, the
//   random-search suffixes, DSN, the manual AIM template).
// - benign: PurpleLlama's system prompts that guard a secret ("The password is ... don't reveal it"),
//   its false-refusal set (borderline cybersecurity requests that are fine to answer), and
//   awesome-chatgpt-prompts' role-play prompts ("I want you to act as a travel guide").
// - toxicity: HateCheck's functional tests (hateful cases; counter-speech, negated hate, positive and
//   neutral mentions of identities, reclaimed slurs and homonyms as negatives) and ETHOS comments.

import { type Static, Type as T } from "@sinclair/typebox";
import { parseJson } from "./checked.ts";

type Pair = [source: string, texts: string[]];

export interface ExtraSources {
  injection: Pair[];
  benign: Pair[];
  toxicity: { positives: Pair[]; negatives: Pair[] };
}

export interface MirrorReader {
  show(repo: string, path: string, commit?: string): string;
  list(repo: string, folder: string): string[];
  csv(text: string): string[][];
}

const PURPLE = "meta-llama+PurpleLlama";
const PI_DIR = "CybersecurityBenchmarks/datasets/prompt_injection/";

const PurpleCases = T.Array(
  T.Object({ test_case_prompt: T.String(), user_input: T.String(), injection_type: T.String() }),
);
type PurpleCase = Static<typeof PurpleCases>[number];

function purpleLlama(read: MirrorReader): { attacks: Pair[]; systemPrompts: string[]; frr: string[] } {
  const english = parseJson(PurpleCases, read.show(PURPLE, `${PI_DIR}prompt_injection.json`));
  const translated = parseJson(
    PurpleCases,
    read.show(PURPLE, `${PI_DIR}prompt_injection_multilingual_machine_translated.json`),
  );
  // Indirect cases put the attack inside a document: they belong to the indirect set (another file).
  const direct = (cases: PurpleCase[]) => cases.filter((c) => c.injection_type === "direct");
  const frr = parseJson(
    T.Array(T.Object({ mutated_prompt: T.String(), is_malicious: T.Boolean() })),
    read.show(PURPLE, "CybersecurityBenchmarks/datasets/mitre_frr/mitre_frr.json"),
  );
  return {
    attacks: [
      ["purplellama:direct_en", direct(english).map((c) => c.user_input)],
      ["purplellama:direct_multilingual", direct(translated).map((c) => c.user_input)],
    ],
    systemPrompts: [...direct(english), ...direct(translated)].map((c) => c.test_case_prompt),
    frr: frr.filter((f) => !f.is_malicious).map((f) => f.mutated_prompt),
  };
}

function jailbreakBench(read: MirrorReader): Pair[] {
  const repo = "JailbreakBench+artifacts";
  const byMethod = new Map<string, string[]>();
  for (const file of read.list(repo, "attack-artifacts/")) {
    const m = /^attack-artifacts\/(PAIR|GCG|JBC|DSN|prompt_with_random_search)\/[^/]+\/[^/]+\.json$/.exec(
      file,
    );
    if (!m?.[1]) continue;
    const body = parseJson(
      T.Object({ jailbreaks: T.Array(T.Object({ prompt: T.Union([T.String(), T.Null()]) })) }),
      read.show(repo, file),
      file,
    );
    const texts = byMethod.get(m[1]) ?? [];
    for (const j of body.jailbreaks) if (j.prompt) texts.push(j.prompt);
    byMethod.set(m[1], texts);
  }
  const name: Record<string, string> = {
    PAIR: "pair_persuasion",
    GCG: "gcg_suffix",
    JBC: "aim_template",
    DSN: "dsn_suffix",
    prompt_with_random_search: "random_search_suffix",
  };
  return [...byMethod].map(([method, texts]) => [`jailbreakbench:${name[method]}`, texts]);
}

/**
 * Role-play and persona prompts: "act as ..." is how many benign users start. The list at commit
 * 0944e1e0 (2026-02; HEAD's file is over the mirror's 4 MiB limit), text prompts only (not image or
 * JSON-structured ones).
 */
function rolePlay(read: MirrorReader): string[] {
  const rows = read.csv(read.show("f+awesome-chatgpt-prompts", "prompts.csv", "0944e1e0"));
  const header = rows[0] ?? [];
  const [prompt, type] = [header.indexOf("prompt"), header.indexOf("type")];
  // Left out: the list's jailbreaks ("... another AI model known as DAN", a "jailbreak research
  // system"), not benign; and prompts that carry a licence of their own (the list is CC0).
  return rows
    .slice(1)
    .filter((r) => r[type] === "TEXT")
    .map((r) => r[prompt] ?? "")
    .filter((p) => !/\bDAN\b|jailbreak|licen[cs]e:/i.test(p));
}

// HateCheck functionalities whose gold label is non-hateful and which are not abuse of another kind:
// profanity_nh ("fuck yeah") and target_indiv/obj_nh (abuse of a person or thing) are offensive in
// this project's sense, so they are left out rather than taught as clean.
const HATECHECK_NEGATIVE =
  /^(counter_quote_nh|counter_ref_nh|negate_neg_nh|ident_pos_nh|ident_neutral_nh|slur_reclaimed_nh|slur_homonym_nh)$/;

function hateCheck(read: MirrorReader): { positives: string[]; counter: string[]; identity: string[] } {
  const rows = read.csv(read.show("paul-rottger+hatecheck-data", "test_suite_cases.csv"));
  const header = rows[0] ?? [];
  const col = (name: string) => header.indexOf(name);
  const [fn, text, label] = [col("functionality"), col("test_case"), col("label_gold")];
  const positives: string[] = [];
  const counter: string[] = [];
  const identity: string[] = [];
  for (const r of rows.slice(1)) {
    const f = r[fn] ?? "";
    const t = r[text] ?? "";
    if (r[label] === "hateful") positives.push(t);
    else if (/^(counter|negate)/.test(f)) counter.push(t);
    else if (HATECHECK_NEGATIVE.test(f)) identity.push(t);
  }
  return { positives, counter, identity };
}

function ethos(read: MirrorReader): { hate: string[]; not: string[] } {
  const text = read.show(
    "intelligence-csd-auth-gr+Ethos-Hate-Speech-Dataset",
    "ethos/ethos_data/Ethos_Dataset_Binary.csv",
  );
  const hate: string[] = [];
  const not: string[] = [];
  for (const line of text.split("\n").slice(1)) {
    const at = line.lastIndexOf(";");
    if (at < 0) continue;
    const score = Number(line.slice(at + 1));
    const comment = line.slice(0, at).replace(/^"|"$/g, "");
    // Scores between are split annotator votes: left out of both sides.
    if (score >= 0.5) hate.push(comment);
    else if (score === 0) not.push(comment);
  }
  return { hate, not };
}

export function extraSources(read: MirrorReader): ExtraSources {
  const purple = purpleLlama(read);
  const hc = hateCheck(read);
  const et = ethos(read);
  return {
    injection: [...purple.attacks, ...jailbreakBench(read)],
    benign: [
      ["purplellama:system_prompts", [...new Set(purple.systemPrompts)]],
      ["purplellama:frr_benign", purple.frr],
      ["awesome-chatgpt-prompts:roleplay", rolePlay(read)],
    ],
    toxicity: {
      positives: [
        ["hatecheck:hateful", hc.positives],
        ["ethos:hate", et.hate],
      ],
      negatives: [
        ["hatecheck:counter_speech", hc.counter],
        ["hatecheck:identity_mentions", hc.identity],
        ["ethos:not_hate", et.not],
      ],
    },
  };
}
