import type { GuardrailsPolicyConfig } from "#core/policies.ts";

// The `guardrails` policy of CONTRACTS (/management/config/guardrails), typed from its schema
// (core/policies.ts). A scanner left out is off; the input's `classifier` asks a deployment
// (a guard model) of the organization, asynchronously, so it is not a Scanner. The output's `mode`:
// blocking scans the response before the caller sees it, async scans after and logs only.
export type GuardrailsPolicy = GuardrailsPolicyConfig;
export type InputGuardrails = NonNullable<GuardrailsPolicy["input"]>;
export type OutputGuardrails = NonNullable<GuardrailsPolicy["output"]>;

/**
 * input: the caller's own words; data: what the request carries as data (tool results), scanned by the
 * input scanners and for indirect injection; output: the answer; tool_call: the arguments of the
 * model's tool calls, scanned by the output scanners and for indirect injection.
 */
export type Stage = "input" | "output" | "data" | "tool_call";
