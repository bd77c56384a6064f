import type { ClassifierConfig } from "../policies/schemas.ts";
import type { ScannerConfig } from "./scanner.ts";

// The `guardrails` policy of CONTRACTS (/management/config/guardrails). A scanner left out is off.
export interface InputGuardrails {
  pii?: ScannerConfig;
  toxicity?: ScannerConfig;
  prompt_injection?: ScannerConfig;
  /** Asks a deployment (a guard model) of the organization; asynchronous, so not a Scanner. */
  classifier?: ClassifierConfig;
}

export interface OutputGuardrails {
  pii?: ScannerConfig;
  toxicity?: ScannerConfig;
  /** blocking: the response is scanned before the caller sees it; async: scanned after, logged only. */
  mode?: "blocking" | "async";
}

export interface GuardrailsPolicy {
  input?: InputGuardrails;
  output?: OutputGuardrails;
}

export type Stage = "input" | "output";
