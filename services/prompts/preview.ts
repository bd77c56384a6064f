// What a deployment's model would receive for a conversation, without calling it: the input
// guardrails of its policy (redaction shown, a block named), then its template and retrieval, as the
// inference gateway runs steps 5 and 6. Operators check their policies with it (the API and the
// policies page); the classifier guardrail, which asks another deployment, is not run here.

import type { RetrievalNote } from "#contracts/internal/inference-log.ts";
import type { ChatMessage } from "#contracts/openai/chat.ts";
import { actorOf, type RequestContext } from "../context.ts";
import { type GuardDecision, requestGuard } from "../inference/guard.ts";
import type { WithKnowledge } from "../knowledge-base/runtime.ts";
import { deploymentOfOrg } from "../orchestration/deployment-queries.ts";
import { effectivePolicies } from "../policies/effective.ts";
import { processPrompt } from "./process.ts";

export interface PromptPreview {
  /** The messages the model would receive; empty when a guardrail blocks the request. */
  messages: ChatMessage[];
  /** The scanner that would refuse the request (400 content_policy_violation), or null. */
  blocked_by: string | null;
  guardrails: GuardDecision;
  retrieval: RetrievalNote | null;
}

export async function previewPrompt(
  ctx: RequestContext & WithKnowledge,
  deploymentId: string,
  messages: ChatMessage[],
): Promise<PromptPreview> {
  const { orgId } = actorOf(ctx);
  const deployment = await deploymentOfOrg(ctx.db, orgId, deploymentId);
  const policies = await effectivePolicies(ctx.db, orgId, deployment.id);
  const guard = policies.guardrails ? requestGuard(policies.guardrails) : undefined;
  const checked = (await guard?.input(messages)) ?? {
    messages,
    decision: { action: "allow", findings: [] },
  };
  if (checked.blockedBy)
    return { messages: [], blocked_by: checked.blockedBy, guardrails: checked.decision, retrieval: null };
  const processed = await processPrompt(ctx, {
    messages: checked.messages,
    orgId,
    deploymentId: deployment.id,
    templateId: policies.prompt?.template_id ?? undefined,
    rag: policies.rag,
    policiesResolved: true,
  });
  return {
    messages: processed.messages,
    blocked_by: null,
    guardrails: checked.decision,
    retrieval: processed.retrieval ?? null,
  };
}
