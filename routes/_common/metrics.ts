import { route } from "../../server/http/route.ts";

export const GET = route({
  access: "public",
  summary: "Prometheus metrics: requests and latency per route and status",
  tags: ["health"],
  handler: ({ gateway }) =>
    new Response(gateway.metrics.render(), { headers: { "content-type": "text/plain; version=0.0.4" } }),
});
