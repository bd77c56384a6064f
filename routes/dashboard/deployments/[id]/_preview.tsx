import type { PromptPreview } from "#services/prompts/preview.ts";
import { guardrailSummary, retrievalSummary } from "../../_shared/parts/decisions.ts";
import { PreviewMessages } from "../../prompts/_view.tsx";

/** The policies page's "Try a question" result: the guardrails' decision, retrieval, and the messages. */
export function PolicyPreview({ preview, error }: { preview?: PromptPreview; error?: string }) {
  if (!preview)
    return (
      <p class="field-error" safe>
        {error ?? ""}
      </p>
    );
  const guardrails = guardrailSummary({ input: preview.guardrails });
  const retrieval = retrievalSummary(preview.retrieval);
  return (
    <div class="policy-preview" data-blocked={preview.blocked_by ? "true" : "false"}>
      {preview.blocked_by ? (
        <p class="error" role="alert" safe>
          {`Refused: the ${preview.blocked_by} guardrail blocks this message (400 content_policy_violation).`}
        </p>
      ) : null}
      <dl class="facts">
        <dt>Guardrails</dt>
        <dd safe>{guardrails || "nothing found"}</dd>
        <dt>Retrieval</dt>
        <dd safe>{retrieval || "no collection attached"}</dd>
      </dl>
      {preview.blocked_by ? null : (
        <PreviewMessages messages={preview.messages} title="What the model receives" />
      )}
    </div>
  );
}
