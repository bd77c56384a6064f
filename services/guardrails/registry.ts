import { promptInjectionModel, toxicityModel, withClassifier } from "./classifier/index.ts";
import type { Scanner, ScannerId } from "./scanner.ts";
import { indirectInjectionScanner } from "./scanners/indirect-injection/index.ts";
import { piiScanner } from "./scanners/pii/index.ts";
import { promptInjectionScanner } from "./scanners/prompt-injection/index.ts";
import { toxicityScanner } from "./scanners/toxicity/index.ts";

// The one place scanners are registered; keyed by the ScannerId union so a missing or misspelt
// scanner is a type error, not a silent no-op. Prompt injection and toxicity are their patterns
// and a trained classifier (classifier/), either of which may find something.
export const scanners: Record<ScannerId, Scanner> = {
  pii: piiScanner,
  prompt_injection: withClassifier(promptInjectionScanner, promptInjectionModel),
  toxicity: withClassifier(toxicityScanner, toxicityModel),
  // Data-role text only (tool results, retrieved chunks): see evaluate.ts stageConfigs.
  indirect_injection: indirectInjectionScanner,
};
