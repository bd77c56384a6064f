// Retrieved knowledge-base passages are data: a document uploaded by anyone with access to the
// collection can plant an instruction for the assistant. The deployment's `input.indirect_injection`
// guardrail screens each passage before it joins the prompt: block refuses the request, strip leaves
// the passage out, wrap quotes it as untrusted data, log keeps it as it is.

import type { IndirectInjectionSettings } from "#core/policies.ts";
import { evaluate } from "../guardrails/evaluate.ts";
import { wrapAsData } from "../inference/tool-data.ts";
import type { Passage } from "../knowledge-base/search.ts";

export function screenPassages(
  passages: Passage[],
  settings: IndirectInjectionSettings | undefined,
): { passages: Passage[]; blocked: boolean } {
  if (!settings || settings.action === "off" || settings.action === "log" || passages.length === 0) {
    return { passages, blocked: false };
  }
  // The indirect-injection scanner alone: the other input scanners judge the caller's words.
  const policy = { input: { indirect_injection: settings } };
  const kept: Passage[] = [];
  for (const passage of passages) {
    const found = evaluate(passage.text, policy, "data").findings.length > 0;
    if (!found) kept.push(passage);
    else if (settings.action === "block") return { passages: [], blocked: true };
    else if (settings.action === "wrap")
      kept.push({ ...passage, text: wrapAsData(passage.text, "retrieved passage") });
  }
  return { passages: kept, blocked: false };
}
