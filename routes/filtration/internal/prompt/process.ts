import { ProcessedPrompt, ProcessPromptRequest } from "#contracts/internal/prompt.ts";
import { route } from "#server/http/route.ts";
import { processPrompt } from "#services/prompts/process.ts";

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
  body: ProcessPromptRequest,
  response: ProcessedPrompt,
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
