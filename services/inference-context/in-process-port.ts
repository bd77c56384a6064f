// The FiltrationPort of the inference gateway when the filtration services run in the same process:
// plain calls into the services behind the /internal/* endpoints, no HTTP, no serialization.
import type { AppContext } from "../context.ts";
import type { FiltrationPort } from "../inference/port.ts";
import { writeInferenceLogs } from "../inference-logs/logs.ts";
import { processPrompt } from "../prompts/process.ts";
import { checkQuota, trackUsage } from "../usage/quota.ts";
import { modelsForApiKey, resolveInferenceContext } from "./resolve.ts";

export function inProcessFiltration(ctx: AppContext): FiltrationPort {
  return {
    resolve: (apiKey, model) => resolveInferenceContext(ctx, apiKey, model),
    models: (apiKey) => modelsForApiKey(ctx, apiKey),
    async checkQuota(orgId, deploymentId, tokens) {
      const check = await checkQuota(ctx, { orgId, deploymentId, tokens });
      return { allowed: check.allowed, resetAt: check.reset_at };
    },
    async trackUsage(records) {
      await trackUsage(ctx, records);
    },
    processPrompt: (context, messages) =>
      processPrompt(ctx, {
        messages,
        orgId: context.orgId,
        deploymentId: context.deployment.id,
        templateId: context.prompt?.template_id,
        rag: context.rag,
      }),
    async writeLogs(entries) {
      await writeInferenceLogs(ctx, entries);
    },
  };
}
