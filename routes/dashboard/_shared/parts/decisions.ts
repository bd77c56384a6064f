// Guardrail decisions and retrieval notes in a line of text, for the inference logs and the policies
// page's preview: from what is logged (scanner, type, offsets), never the matched text.
import { Type as T } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import type { RetrievalNote } from "#contracts/internal/inference-log.ts";
import type { LoggedDecision } from "#services/inference-logs/logs.ts";

/** A log entry's guardrails as stored: JSON with a decision per stage that ran (input, classifier, output). */
export interface LoggedGuardrails {
  input?: unknown;
  classifier?: unknown;
  output?: unknown;
  [stage: string]: unknown;
}

// LoggedDecision's fields, checked before they are read (the log holds JSON, written by the gateway).
const checkDecision = TypeCompiler.Compile(
  T.Object({
    action: T.Optional(T.String()),
    findings: T.Optional(
      T.Array(T.Object({ scanner: T.Optional(T.String()), type: T.Optional(T.String()) })),
    ),
    error: T.Optional(T.String()),
    categories: T.Optional(T.Array(T.String())),
  }),
);

/** A stage's logged decision, or undefined where none is (or it is not a decision). */
export function loggedDecision(value: unknown): LoggedDecision | undefined {
  return checkDecision.Check(value) ? value : undefined;
}

/** "input redact (pii email ×2)": what each guardrail stage decided; only offsets are logged, never text. */
export function guardrailSummary(guardrails: LoggedGuardrails): string {
  const parts: string[] = [];
  for (const [stage, value] of Object.entries(guardrails)) {
    const decision = loggedDecision(value);
    if (!decision?.action || (decision.action === "allow" && !decision.findings?.length && !decision.error))
      continue;
    const kinds = new Map<string, number>();
    for (const f of decision.findings ?? []) {
      const kind = [f.scanner, f.type].filter(Boolean).join(" ");
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
    const found = [...kinds].map(([kind, n]) => (n > 1 ? `${kind} ×${n}` : kind)).join(", ");
    parts.push(
      `${stage} ${decision.action}${found ? ` (${found})` : ""}${decision.error ? " (could not check)" : ""}`,
    );
  }
  return parts.join("; ");
}

/** "hybrid: leave.md, travel.md" or "full text: … (fallback: why)". */
export function retrievalSummary(retrieval: RetrievalNote | null): string {
  if (!retrieval) return "";
  const documents = [...new Set(retrieval.passages.map((p) => p.document))].join(", ") || "no passage";
  const mode = retrieval.mode === "hybrid" ? "hybrid" : "full text";
  return `${mode}: ${documents}${retrieval.fallback ? ` (fallback: ${retrieval.fallback})` : ""}`;
}
