import { route } from "#server/http/route.ts";

export const GET = route({
  access: "public",
  summary: "Prometheus metrics: HTTP, LLM, gRPC and process series (docs/observability.md)",
  tags: ["health"],
  handler: async ({ gateway }) =>
    new Response(await gateway.metrics.render(), {
      headers: { "content-type": gateway.metrics.contentType },
    }),
});
