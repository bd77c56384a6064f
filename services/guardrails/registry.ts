import type { Scanner, ScannerId } from "./scanner.ts";
import { piiScanner } from "./scanners/pii/index.ts";
import { promptInjectionScanner } from "./scanners/prompt-injection/index.ts";
import { toxicityScanner } from "./scanners/toxicity/index.ts";

// The one place scanners are registered; keyed by the ScannerId union so a missing or misspelt
// scanner is a type error, not a silent no-op.
export const scanners: Record<ScannerId, Scanner> = {
  pii: piiScanner,
  prompt_injection: promptInjectionScanner,
  toxicity: toxicityScanner,
};
