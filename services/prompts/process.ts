// Prompt processing for an inference request (step 6): the template named in the call, or else the
// one the deployment's `prompt` policy names, applied to the messages. Retrieval is a later issue:
// {{context}} is filled with "" until the knowledge base can be searched, and `rag` is accepted and
// not yet used.
import { and, eq, isNull } from "drizzle-orm";
import { deployments } from "../../db/schema/index.ts";
import type { AppContext } from "../context.ts";
import { notFound } from "../errors.ts";
import type { ChatMessage } from "../inference/messages.ts";
import { isUuid, uuidOr404 } from "../orchestration/ids.ts";
import { effectivePolicies } from "../policies/effective.ts";
import { applyTemplate, type TemplateContent } from "./apply.ts";
import { latestTemplateContent } from "./templates.ts";

export interface ProcessPromptInput {
  messages: ChatMessage[];
  /** A template to apply instead of the deployment's. */
  templateId?: string | undefined;
  /** Whose template and deployment these must be, when the caller knows. */
  orgId?: string | undefined;
  deploymentId?: string | undefined;
  rag?: Record<string, unknown> | undefined;
}

/** Where a template's latest version comes from: the database, or a cache of it (the inference gateway's). */
export type TemplateLoader = (
  templateId: string,
  orgId: string | undefined,
) => Promise<TemplateContent | undefined>;

export async function processPrompt(
  ctx: Pick<AppContext, "db">,
  input: ProcessPromptInput,
  loadTemplate: TemplateLoader = (id, org) => latestTemplateContent(ctx.db, id, org),
): Promise<ChatMessage[]> {
  let orgId = input.orgId;
  let templateId = input.templateId;
  if (templateId === undefined && input.deploymentId !== undefined) {
    const id = uuidOr404(input.deploymentId, "deployment");
    const [deployment] = await ctx.db
      .select({ orgId: deployments.orgId })
      .from(deployments)
      .where(
        and(
          eq(deployments.id, id),
          isNull(deployments.deletedAt),
          ...(orgId ? [eq(deployments.orgId, orgId)] : []),
        ),
      )
      .limit(1);
    if (!deployment) throw notFound("deployment");
    orgId = deployment.orgId;
    templateId = (await effectivePolicies(ctx.db, orgId, id)).prompt?.template_id ?? undefined;
    // The policy's template was checked when set; a template since gone leaves the messages as they are.
    if (templateId === undefined) return input.messages;
    const content = await loadTemplate(templateId, orgId);
    return content ? applyTemplate(input.messages, content) : input.messages;
  }
  if (templateId === undefined) return input.messages;
  if (!isUuid(templateId)) throw notFound("prompt template");
  const content = await loadTemplate(templateId.toLowerCase(), orgId);
  if (!content) throw notFound("prompt template");
  return applyTemplate(input.messages, content);
}
