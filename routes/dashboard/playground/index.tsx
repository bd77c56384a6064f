import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { listDeployments } from "#services/orchestration/deployment-queries.ts";
import { pageInfo } from "../_shared/page.ts";
import { PlaygroundPage } from "./_view.tsx";

export const GET = route({
  access: "deployments:read",
  summary: "Playground: chat with a RUNNING deployment, the answer streamed into the page",
  html: true,
  query: t.Object({ deployment: t.Optional(t.String({ maxLength: 128 })) }),
  handler: async ({ ctx, request, query }) => {
    const { deployments } = await listDeployments(ctx);
    return (
      <PlaygroundPage
        page={await pageInfo(ctx, request)}
        deployments={deployments.map((d) => ({
          id: d.deployment_id,
          name: d.model_name,
          status: d.status,
        }))}
        selected={query.deployment}
        inference={ctx.inference !== undefined}
      />
    );
  },
});
