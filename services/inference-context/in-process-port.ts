// The FiltrationPort of the inference gateway when the filtration services run in the same process:
// plain calls into the services behind the /internal/* endpoints, no HTTP, no serialization.
import type { AppContext } from "../context.ts";
import type { FiltrationPort } from "../inference/port.ts";
import { RevalidatingCache } from "../inference/revalidating-cache.ts";
import { writeInferenceLogs } from "../inference-logs/logs.ts";
import type { WithKnowledge } from "../knowledge-base/runtime.ts";
import type { TemplateContent } from "../prompts/apply.ts";
import { processPrompt, type TemplateLoader } from "../prompts/process.ts";
import { latestTemplateContent } from "../prompts/templates.ts";
import { deleteResponse, findResponse, saveResponse } from "../responses/store.ts";
import { checkBudget } from "../spend/budgets.ts";
import { checkQuota, trackUsage } from "../usage/quota.ts";
import { modelsForApiKey, resolveInferenceContext } from "./resolve.ts";

export function inProcessFiltration(
  ctx: AppContext & WithKnowledge,
  /** The template cache's clock (default Date.now): tests move it a second on instead of waiting. */
  options: { now?: (() => number) | undefined } = {},
): FiltrationPort {
  // Templates change rarely and are read on every request of a deployment that has one: kept for a
  // second, like the contexts that name them, so a new version is used within a second.
  const templates = new RevalidatingCache<TemplateContent | undefined>(
    async (key) => {
      const [templateId, orgId] = key.split("\n") as [string, string];
      const row = await latestTemplateContent(ctx.db, templateId, orgId || undefined);
      return row && { systemPrompt: row.systemPrompt, userTemplate: row.userTemplate };
    },
    { refreshAfterMs: 500, maxAgeMs: 1000, staleForMs: 30_000, maxEntries: 10_000, now: options.now },
  );
  const loadTemplate: TemplateLoader = (templateId, orgId) => templates.get(`${templateId}\n${orgId ?? ""}`);
  return {
    responses: {
      save: (record) => saveResponse(ctx, record),
      find: (apiKey, id) => findResponse(ctx, apiKey, id),
      delete: (apiKey, id) => deleteResponse(ctx, apiKey, id),
    },
    resolve: (apiKey, model) => resolveInferenceContext(ctx, apiKey, model),
    models: (apiKey) => modelsForApiKey(ctx, apiKey),
    async checkQuota(orgId, deploymentId, tokens) {
      const check = await checkQuota(ctx, { orgId, deploymentId, tokens });
      return {
        allowed: check.allowed,
        resetAt: check.reset_at,
        remainingRequests: check.remaining_requests,
        remainingTokens: check.remaining_tokens,
        usedRequests: check.used_requests,
        usedTokens: check.used_tokens,
      };
    },
    checkBudget: (orgId, apiKeyId) => checkBudget(ctx, { orgId, apiKeyId }),
    async trackUsage(records) {
      await trackUsage(ctx, records);
    },
    processPrompt: (context, messages) =>
      processPrompt(
        ctx,
        {
          messages,
          orgId: context.orgId,
          deploymentId: context.deployment.id,
          templateId: context.prompt?.template_id,
          rag: context.rag,
          policiesResolved: true,
          indirect: context.guardrails?.input?.indirect_injection,
        },
        loadTemplate,
      ),
    async writeLogs(entries) {
      await writeInferenceLogs(ctx, entries);
    },
  };
}
