// The input guardrails of the gateway benchmark's "lifecycle on" policy (PII redact, toxicity and
// prompt-injection block, classifiers at their defaults) on its 1 KB benign prompt, each call with a
// new nonce: CPU µs per evaluation, the median of 7 runs of 20,000, and each scanner's share.
//   bun bench/scan-1kb.ts [--iterations 20000]
import { parseArgs } from "node:util";
import { at } from "#scripts/checked.ts";
import { evaluate } from "#services/guardrails/evaluate.ts";
import type { GuardrailsPolicy } from "#services/guardrails/policy.ts";
import { scanners } from "#services/guardrails/registry.ts";
import { benchPrompt } from "./prompts.ts";

const { values } = parseArgs({
  options: { iterations: { type: "string", default: "20000" } },
  strict: false,
  args: import.meta.main ? process.argv.slice(2) : [],
});
const iterations = Number(values.iterations);

const input = {
  pii: { action: "redact" },
  toxicity: { action: "block" },
  prompt_injection: { action: "block" },
} satisfies GuardrailsPolicy["input"];
const policy: GuardrailsPolicy = { input };
const texts = Array.from({ length: 1024 }, (_, i) =>
  benchPrompt.replace("NONCE", `${1 + (i & 1)}-${i * 37}`),
);

function perCall(run: (text: string) => unknown): number {
  const runs: number[] = [];
  for (let r = 0; r < 7; r++) {
    // CPU time, not wall time: the machine is shared, and a descheduled thread uses none.
    const t0 = process.cpuUsage();
    for (let i = 0; i < iterations; i++) run(at(texts, i & 1023));
    const used = process.cpuUsage(t0);
    runs.push((used.user + used.system) / iterations);
  }
  runs.sort((a, b) => a - b);
  return at(runs, 3);
}

if (import.meta.main) main();
function main() {
  const result = evaluate(at(texts, 0), policy, "input");
  console.log(`decision: ${result.action}, findings: ${result.findings.length}`);
  console.log(`all three (evaluate): ${perCall((t) => evaluate(t, policy, "input")).toFixed(2)} µs`);
  // A tool's result: the same scanners and indirect injection (services/inference/tool-data.ts).
  const asData: GuardrailsPolicy = { input: { ...policy.input, indirect_injection: { action: "block" } } };
  console.log(
    `as data, with indirect_injection: ${perCall((t) => evaluate(t, asData, "data")).toFixed(2)} µs`,
  );
  for (const id of ["prompt_injection", "pii", "toxicity"] as const) {
    console.log(`  ${id}: ${perCall((t) => scanners[id].scan(t, input[id])).toFixed(2)} µs`);
  }
}
