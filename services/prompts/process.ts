// Prompt processing for an inference request (step 6): the template named in the call, or else the
// one the deployment's `prompt` policy names, applied to the messages; and, when the deployment's
// `rag` policy names collections, the passages that best answer the last user message, in the
// template's {{context}} (or, without a template that asks for them, in a system message), each with
// its document's name so the answer can cite it. Callers send nothing extra.

import type { RetrievalNote } from "#contracts/internal/inference-log.ts";
import type { ChatMessage } from "#contracts/openai/chat.ts";
import { notFound } from "#core/errors.ts";
import { isUuid } from "#core/ids.ts";
import type { IndirectInjectionSettings, RagPolicy } from "#core/policies.ts";
import { textOf } from "../guardrails/message-text.ts";
import { type RetrievalContext, type RetrievalOptions, retrieve } from "../knowledge-base/retrieve.ts";
import { formatPassages } from "../knowledge-base/search.ts";
import { liveDeploymentOrg } from "../orchestration/live-deployment.ts";
import { effectivePolicies } from "../policies/effective.ts";
import { applyTemplate, type TemplateContent } from "./apply.ts";
import { screenPassages } from "./screen-passages.ts";
import { latestTemplateContent } from "./templates.ts";

export interface ProcessPromptInput {
  messages: ChatMessage[];
  /** A template to apply instead of the deployment's. */
  templateId?: string | undefined;
  /** Whose template and deployment these must be, when the caller knows. */
  orgId?: string | undefined;
  deploymentId?: string | undefined;
  /** The deployment's effective `rag` policy, when the caller has it already (the gateway does). */
  rag?: RagPolicy | undefined;
  /**
   * The caller resolved the deployment's policies already (the inference gateway's context): `rag` and
   * `templateId` are all there is, so the deployment's policies are not read again.
   */
  policiesResolved?: boolean | undefined;
  /** The deployment's `input.indirect_injection` guardrail: retrieved passages are data, screened by it. */
  indirect?: IndirectInjectionSettings | undefined;
}

/** Where a template's latest version comes from: the database, or a cache of it (the inference gateway's). */
export type TemplateLoader = (
  templateId: string,
  orgId: string | undefined,
) => Promise<TemplateContent | undefined>;

/** The search a `rag` policy asks for; undefined when it names no collection. */
export function retrievalOf(rag: RagPolicy | undefined): RetrievalOptions | undefined {
  if (!rag || rag.collection_ids.length === 0) return undefined;
  return {
    collectionIds: rag.collection_ids,
    topK: rag.top_k ?? 4,
    minScore: rag.min_score ?? 0,
    embeddingDeployment: rag.embedding_deployment,
  };
}

export interface ProcessedPrompt {
  messages: ChatMessage[];
  /** What retrieval did, for the inference log; absent when the deployment retrieves nothing. */
  retrieval?: RetrievalNote | undefined;
  /** A retrieved passage held an instruction for the assistant and the policy blocks: the scanner. */
  blockedBy?: string | undefined;
}

const contextInstruction =
  "Answer from the numbered passages below when they are relevant, and cite them by number and document name.";

export async function processPrompt(
  ctx: RetrievalContext,
  input: ProcessPromptInput,
  loadTemplate: TemplateLoader = (id, org) => latestTemplateContent(ctx.db, id, org),
): Promise<ProcessedPrompt> {
  let orgId = input.orgId;
  let rag = input.rag;
  let template: TemplateContent | undefined;

  if (input.templateId !== undefined) {
    if (!isUuid(input.templateId)) throw notFound("prompt template");
    template = await loadTemplate(input.templateId.toLowerCase(), orgId);
    if (!template) throw notFound("prompt template");
  }
  if (
    !input.policiesResolved &&
    input.deploymentId !== undefined &&
    (template === undefined || rag === undefined)
  ) {
    const deployment = await liveDeploymentOrg(ctx.db, input.deploymentId, orgId);
    orgId = deployment.orgId;
    const policies = await effectivePolicies(ctx.db, orgId, deployment.id);
    rag ??= policies.rag;
    const policyTemplate = input.templateId === undefined ? policies.prompt?.template_id : undefined;
    // The policy's template was checked when set; a template since gone leaves the messages as they are.
    if (policyTemplate) template = await loadTemplate(policyTemplate, orgId);
  }

  const retrieval = retrievalOf(rag);
  const lastUser = input.messages.findLast((m) => m.role === "user");
  const found =
    retrieval && orgId && lastUser ? await retrieve(ctx, orgId, textOf(lastUser), retrieval) : undefined;
  const screened = screenPassages(found?.passages ?? [], input.indirect);
  if (screened.blocked)
    return { messages: input.messages, retrieval: found?.note, blockedBy: "indirect_injection" };
  const context = formatPassages(screened.passages);

  const asksForContext = template?.userTemplate?.includes("{{context}}") ?? false;
  const messages = template ? applyTemplate(input.messages, template, context) : [...input.messages];
  if (context !== "" && !asksForContext) {
    // Right before the conversation (after the template's own system prompt), so it reads as reference.
    const at = messages.findIndex((m) => m.role !== "system");
    messages.splice(at < 0 ? messages.length : at, 0, {
      role: "system",
      content: `${contextInstruction}\n\n${context}`,
    });
  }
  return { messages, retrieval: found?.note };
}
