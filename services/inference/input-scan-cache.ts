// A chat request carries the whole conversation, so every turn sends again the messages the gateway
// scanned on the turns before. Input evaluations are kept for the recent (text, input policy) pairs,
// in memory and bounded, so a long conversation costs the scan of its new message only. The key is
// the full text (not a hash an attacker could collide), so a hit is exactly the result `evaluate`
// would give: scanners are pure functions of the text and the policy.
import type { Evaluation } from "../guardrails/evaluate.ts";
import { evaluateOffLoop } from "../guardrails/off-loop.ts";
import type { GuardrailsPolicy } from "../guardrails/policy.ts";

const MAX_ENTRIES = 2048;
/** Total characters of the texts kept (UTF-16 code units; 8 Mi ≈ 16 MiB). */
const MAX_CHARS = 8 * 1024 * 1024;
/** Longer texts are scanned each time: keeping them would evict many conversations. */
const MAX_TEXT = 64 * 1024;

// The input policy's part of the key, written once per policy object (a deployment's context keeps
// its policy object while it is cached), not once per message. A memo of a value, not process state.
const policyKeys = new WeakMap<GuardrailsPolicy, string>();
const policyKeyOf = (policy: GuardrailsPolicy): string => {
  let key = policyKeys.get(policy);
  if (key === undefined) {
    key = JSON.stringify(policy.input ?? null);
    policyKeys.set(policy, key);
  }
  return key;
};

/**
 * The recent input evaluations of one process, held by the inference runtime (runtime.ts), which the
 * composition root builds once.
 */
export class InputScanCache {
  readonly #entries = new Map<string, Evaluation>();
  #chars = 0;

  /**
   * `evaluate(text, policy, stage)`, given again from memory for a text, stage and policy seen
   * recently. The stage is part of the key: the same text is judged differently as a tool's result
   * ("data": indirect injection too) than as the caller's own words ("input").
   */
  async evaluate(
    text: string,
    policy: GuardrailsPolicy,
    stage: "input" | "data" = "input",
  ): Promise<Evaluation> {
    if (text.length > MAX_TEXT) return evaluateOffLoop(text, policy, stage);
    const entries = this.#entries;
    const key = `${stage}\u0000${policyKeyOf(policy)}\u0000${text}`;
    const known = entries.get(key);
    if (known !== undefined) {
      // Most recently used last: Map keeps insertion order.
      entries.delete(key);
      entries.set(key, known);
      return known;
    }
    const result = frozen(await evaluateOffLoop(text, policy, stage));
    entries.set(key, result);
    this.#chars += key.length;
    for (const [old] of entries) {
      if (entries.size <= MAX_ENTRIES && this.#chars <= MAX_CHARS) break;
      entries.delete(old);
      this.#chars -= old.length;
    }
    return result;
  }
}

/** A kept result is shared by later requests: nobody may change it. */
function frozen(e: Evaluation): Evaluation {
  for (const f of e.findings) Object.freeze(f);
  Object.freeze(e.findings);
  if (e.blockedBy) Object.freeze(e.blockedBy);
  return Object.freeze(e);
}
