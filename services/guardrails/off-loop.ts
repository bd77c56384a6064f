// Guardrail evaluation that never holds the request loop for long. A short text (the common chat
// turn) is evaluated inline: a worker's round trip would cost more than the scan. A longer one goes to
// a worker thread (services/workers/pool.ts) with a deadline; a scan that misses it counts as a text
// no scanner read (`evaluateUnscanned`), so each scanner's action decides: `block` refuses it,
// `redact` masks it, `log` lets it through and records it. Scanners are linear and capped
// (SCAN_CAPS in evaluate.ts), so the deadline is a guard for a loaded machine, not the normal path.
import { DeadlineExceeded, WorkerPool } from "../workers/pool.ts";
import { type Evaluation, evaluate, evaluateUnscanned, stageConfigs } from "./evaluate.ts";
import type { GuardrailsPolicy, Stage } from "./policy.ts";

/**
 * Texts up to this many characters are scanned inline. The slowest scanner costs up to ~10 µs a
 * character of adversarial text (digits for the phone validator), so this bounds an inline scan to
 * about 40 ms; the 1 KB prompt of bench/scan-1kb.ts takes about 60 µs.
 */
export const INLINE_SCAN_CHARS = 4096;
/** How long a scan off the loop may take, from its submission (queueing included). */
export const SCAN_DEADLINE_MS = 5000;

export interface OffLoopScan {
  text: string;
  policy: GuardrailsPolicy;
  stage: Stage;
}

let pool: WorkerPool<OffLoopScan, Evaluation> | undefined;

export async function evaluateOffLoop(
  text: string,
  policy: GuardrailsPolicy,
  stage: Stage = "input",
  deadlineMs = SCAN_DEADLINE_MS,
): Promise<Evaluation> {
  if (text.length <= INLINE_SCAN_CHARS || stageConfigs(policy, stage).length === 0) {
    return evaluate(text, policy, stage);
  }
  pool ??= new WorkerPool<OffLoopScan, Evaluation>(new URL("./scan-worker.ts", import.meta.url));
  try {
    return await pool.run({ text, policy, stage }, deadlineMs);
  } catch (error) {
    if (error instanceof DeadlineExceeded) return evaluateUnscanned(text, policy, stage);
    throw error;
  }
}
