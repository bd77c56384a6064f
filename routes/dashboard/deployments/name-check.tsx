import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { deploymentNameStatus } from "#services/orchestration/deployment-placement.ts";
import { NameCheck } from "./_deploy-form.tsx";

export const GET = route({
  access: "deployments:read",
  summary: "Whether a deployment name is free (the deploy form asks as you type)",
  html: true,
  query: t.Object({ model_name: t.Optional(t.String({ maxLength: 256 })) }),
  handler: async ({ ctx, query }) => (
    <NameCheck
      status={query.model_name?.trim() ? await deploymentNameStatus(ctx, query.model_name) : "empty"}
    />
  ),
});
