// The one shape every guardrail scanner has. Scanners are pure and synchronous: no I/O, no remote
// model (the classifiers of classifier/ are small linear models in memory), so they can run inline on the request path (input) and on every streamed delta (output).

export type ScannerId = "pii" | "prompt_injection" | "toxicity" | "indirect_injection";

/**
 * One thing a scanner found. Offsets (UTF-16 code units, end exclusive) into the scanned text;
 * never the matched text itself, so a finding can be logged, audited or returned to a caller
 * without leaking what it points at.
 */
export interface Finding {
  scanner: ScannerId;
  type: string;
  /** 0..1; a scanner returns only findings whose score reached the configured threshold. */
  score: number;
  start: number;
  end: number;
}

export type GuardrailAction = "off" | "log" | "redact" | "block";

export interface ScannerConfig {
  action: GuardrailAction;
  /** Minimum score (0..1) for a finding to count; each scanner has its own default. */
  threshold?: number;
  /**
   * Prompt injection and toxicity: the minimum probability for the trained classifier's finding
   * (default: the one stored in its model; 1 turns the classifier off).
   */
  classifier_threshold?: number;
}

export interface Scanner {
  id: ScannerId;
  /** Default threshold when the config leaves it out. */
  defaultThreshold: number;
  scan(text: string, config: ScannerConfig): Finding[];
}

/** Probabilistic OR of independent signals: two weak signals together count more than either. */
export function combineScores(scores: readonly number[]): number {
  let keep = 1;
  for (const s of scores) keep *= 1 - Math.min(1, Math.max(0, s));
  return 1 - keep;
}
