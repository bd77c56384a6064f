import type { GuardrailsPolicy, Stage } from "./policy.ts";
import { redact } from "./redact.ts";
import { scanners } from "./registry.ts";
import type { Finding, GuardrailAction, ScannerConfig, ScannerId } from "./scanner.ts";

export type Decision = "allow" | "log" | "redact" | "block";

export interface Evaluation {
  allowed: boolean;
  action: Decision;
  /** Offsets into the evaluated text, never the text itself. */
  findings: Finding[];
  /** The text with PII replaced by typed placeholders, when the action is "redact". */
  redacted?: string;
  /** The scanners whose findings decided a block (for the error message: names, not content). */
  blockedBy?: ScannerId[];
}

const strength: Record<Decision, number> = { allow: 0, log: 1, redact: 2, block: 3 };

/**
 * The most characters (UTF-16 code units) each scanner reads of one text. Every scanner is linear in
 * its input, but with constants that differ (the phone validator costs up to ~10 µs a character of a
 * text dense with digits): the caps bound one scan to about a second of a worker's CPU. What lies past
 * a scanner's cap is not read by it: it becomes an `unscanned` finding of that scanner (score 1), so
 * the scanner's configured action decides it: `block` refuses the text, `redact` replaces the unread
 * tail (from the last white space before the cap) by `[UNSCANNED]`, `log` lets it through and records it. docs/security.md lists them.
 */
export const SCAN_CAPS: Readonly<Record<ScannerId, number>> = {
  pii: 128 * 1024,
  prompt_injection: 256 * 1024,
  toxicity: 256 * 1024,
  indirect_injection: 256 * 1024,
};

/** The finding that stands for the part of a text a scanner did not read. */
export function unscannedFinding(scanner: ScannerId, start: number, end: number): Finding {
  return { scanner, type: "unscanned", score: 1, start, end };
}

function scanCapped(id: ScannerId, text: string, config: ScannerConfig): Finding[] {
  const cap = SCAN_CAPS[id];
  if (text.length <= cap) return scanners[id].scan(text, config);
  const at = cutBefore(text, cap);
  const found = scanners[id].scan(text.slice(0, at), config);
  found.push(unscannedFinding(id, at, text.length));
  return found;
}

/** How far back from a cap a cut looks for white space. */
const CUT_LOOKBACK = 1024;

/**
 * Where the read part of a capped text ends: after the last white space before the cap, so a value
 * that straddles the cap ("john.doe@ex|ample.com") is wholly in the unread part and redacted with it,
 * never half read; never inside a surrogate pair.
 */
function cutBefore(text: string, cap: number): number {
  for (let i = cap; i > cap - CUT_LOOKBACK && i > 0; i--) {
    const c = text.charCodeAt(i - 1);
    if (c === 32 || c === 10 || c === 9 || c === 13) return i;
  }
  const c = text.charCodeAt(cap - 1);
  return c >= 0xd800 && c <= 0xdbff ? cap - 1 : cap;
}

/**
 * What a configured action means for a scanner. `redact` is defined for PII only; asked of another
 * scanner it blocks, because a prompt injection or an insult cannot be made safe by masking a span.
 */
function decisionFor(scanner: ScannerId, action: GuardrailAction): Decision {
  if (action === "off") return "allow";
  if (action === "redact" && scanner !== "pii") return "block";
  return action;
}

/**
 * The indirect-injection scanner's config for the evaluation: strip and wrap change the message, not
 * the verdict (the guard applies them), so for evaluate they mean log.
 */
function indirectConfig(
  settings: { action: string; threshold?: number | undefined } | undefined,
): ScannerConfig | undefined {
  if (settings === undefined) return undefined;
  const action: GuardrailAction =
    settings.action === "block" ? "block" : settings.action === "off" ? "off" : "log";
  return settings.threshold === undefined ? { action } : { action, threshold: settings.threshold };
}

/** The scanners a stage runs, with their configs (output has no prompt-injection scanner). */
export function stageConfigs(policy: GuardrailsPolicy, stage: Stage): [ScannerId, ScannerConfig][] {
  if (stage === "data" || stage === "tool_call") {
    const base = stageConfigs(policy, stage === "data" ? "input" : "output");
    const indirect = indirectConfig(
      stage === "data" ? policy.input?.indirect_injection : policy.output?.indirect_injection,
    );
    return indirect && indirect.action !== "off" ? [...base, ["indirect_injection", indirect]] : base;
  }
  const configs: [ScannerId, ScannerConfig | undefined][] =
    stage === "input"
      ? [
          ["prompt_injection", policy.input?.prompt_injection],
          ["pii", policy.input?.pii],
          ["toxicity", policy.input?.toxicity],
        ]
      : [
          ["pii", policy.output?.pii],
          ["toxicity", policy.output?.toxicity],
        ];
  return configs.filter((c): c is [ScannerId, ScannerConfig] => c[1] !== undefined && c[1].action !== "off");
}

/**
 * Runs the scanners a guardrails policy turns on for one stage and decides: the strongest action of
 * any scanner that found something wins (block > redact > log > allow).
 */
export function evaluate(text: string, policy: GuardrailsPolicy, stage: Stage = "input"): Evaluation {
  return decide(
    text,
    stageConfigs(policy, stage).map(([id, config]) => [id, config, scanCapped(id, text, config)]),
  );
}

/**
 * The evaluation of a text no scanner could read in time (its scan passed its deadline): all of it is
 * `unscanned` for every scanner the stage runs, so each scanner's action decides, as past a cap.
 */
export function evaluateUnscanned(
  text: string,
  policy: GuardrailsPolicy,
  stage: Stage = "input",
): Evaluation {
  return decide(
    text,
    stageConfigs(policy, stage).map(([id, config]) => [id, config, [unscannedFinding(id, 0, text.length)]]),
  );
}

/** The strongest action of any scanner that found something wins (block > redact > log > allow). */
function decide(text: string, scanned: [ScannerId, ScannerConfig, Finding[]][]): Evaluation {
  let decision: Decision = "allow";
  const findings: Finding[] = [];
  const redactable: Finding[] = [];
  const blockedBy: ScannerId[] = [];
  for (const [id, config, found] of scanned) {
    if (found.length === 0) continue;
    const d = decisionFor(id, config.action);
    for (const f of found) findings.push(f);
    if (d === "redact") for (const f of found) redactable.push(f);
    if (d === "block") blockedBy.push(id);
    if (strength[d] > strength[decision]) decision = d;
  }
  const result: Evaluation = { allowed: decision !== "block", action: decision, findings };
  if (decision === "redact") result.redacted = redact(text, redactable);
  if (blockedBy.length > 0) result.blockedBy = blockedBy;
  return result;
}
