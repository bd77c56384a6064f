import { t } from "elysia";
import { RetrievalNote } from "#contracts/internal/inference-log.ts";
import { Messages } from "#routes/filtration/_schemas/internal.ts";
import { route } from "#server/http/route.ts";
import { previewPrompt } from "#services/prompts/preview.ts";

export const POST = route({
  access: "policies:read",
  summary: "What the deployment's model would receive for these messages",
  description:
    "Runs the deployment's input guardrails (redaction applied, a block named in `blocked_by`), then its " +
    "prompt template and retrieval, as the inference gateway does before calling the model; the model is not " +
    "called. The `classifier` guardrail is not run here.",
  params: t.Object({ id: t.String() }),
  body: t.Object({ messages: Messages }),
  response: t.Object({
    messages: t.Array(t.Record(t.String(), t.Unknown())),
    blocked_by: t.Nullable(t.String()),
    guardrails: t.Object({
      action: t.String(),
      findings: t.Array(
        t.Object({
          scanner: t.String(),
          type: t.String(),
          score: t.Number(),
          start: t.Integer(),
          end: t.Integer(),
          message: t.Optional(t.Integer()),
        }),
      ),
    }),
    retrieval: t.Nullable(RetrievalNote),
  }),
  handler: ({ ctx, params, body }) => previewPrompt(ctx, params.id, body.messages),
});
