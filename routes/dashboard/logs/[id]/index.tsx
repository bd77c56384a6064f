import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { inferenceLogEntry } from "#services/inference-logs/logs.ts";
import { pageInfo } from "../../_shared/page.ts";
import { InferenceLogEntryPage } from "./_view.tsx";

export const GET = route({
  access: "logs:read",
  summary: "One inference request: its metadata, guardrail findings, timings, who served it and its cost",
  html: true,
  params: t.Object({ id: t.String({ maxLength: 64 }) }),
  handler: async ({ ctx, params, request }) => {
    const [page, found] = await Promise.all([pageInfo(ctx, request), inferenceLogEntry(ctx, params.id)]);
    return (
      <InferenceLogEntryPage
        page={page}
        entry={found.entry}
        deployments={found.deployments}
        replica={found.replica}
      />
    );
  },
});
