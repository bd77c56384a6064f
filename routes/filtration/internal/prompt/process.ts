import { t } from "elysia";
import { IndirectInjectionScanner, RagConfig } from "#core/policies.ts";
import { route } from "#server/http/route.ts";
import { processPrompt } from "#services/prompts/process.ts";
import { RetrievalNote } from "../../_schemas/inference-logs.ts";
import { Messages, Uuid } from "../../_schemas/internal.ts";

export const POST = route({
  access: "internal",
  // Prompts, documents and model output: any character but NUL.
  freeText: true,
  summary: "Apply a prompt template and retrieved knowledge-base passages to messages",
  description:
    "The template is `template_id` when given, else the one the deployment's `prompt` policy names. With " +
    "collections in `rag_config` (else the deployment's `rag` policy), the passages that best answer the last " +
    "user message fill `{{context}}`, or a system message when the template does not ask for them.",
  bodyLimit: 8 * 1024 * 1024,
  body: t.Object({
    messages: Messages,
    template_id: t.Optional(t.String({ maxLength: 64 })),
    // The deployment's effective rag policy, as the context resolve gave it.
    rag_config: t.Optional(RagConfig),
    // The deployment's input.indirect_injection guardrail: retrieved passages are screened as data.
    indirect_injection: t.Optional(IndirectInjectionScanner),
    deployment_id: t.Optional(t.String({ maxLength: 64 })),
    org_id: t.Optional(Uuid),
    policies_resolved: t.Optional(
      t.Boolean({
        description: "The caller sends the deployment's effective template and rag: do not read them again",
      }),
    ),
  }),
  response: t.Object({
    messages: t.Array(t.Record(t.String(), t.Unknown())),
    retrieval: t.Optional(RetrievalNote),
    blocked_by: t.Optional(t.String({ description: "A retrieved passage was blocked by this guardrail" })),
  }),
  handler: ({ ctx, body }) =>
    processPrompt(ctx, {
      messages: body.messages,
      templateId: body.template_id,
      deploymentId: body.deployment_id,
      orgId: body.org_id,
      rag: body.rag_config,
      policiesResolved: body.policies_resolved,
      indirect: body.indirect_injection,
    }).then(({ blockedBy, ...processed }) =>
      blockedBy ? { ...processed, blocked_by: blockedBy } : processed,
    ),
});
