import { t } from "elysia";
import { route } from "#server/http/route.ts";

export const GET = route({
  access: "public",
  summary: "Readiness: the database and every dependency answer",
  description: "200 when every check is ok, 503 otherwise; `checks` says which dependency is failing.",
  tags: ["health"],
  response: t.Object({ status: t.String(), checks: t.Record(t.String(), t.String()) }),
  handler: async ({ gateway }) => {
    const checks = await gateway.readiness();
    const ready = Object.values(checks).every((v) => v === "ok");
    return Response.json({ status: ready ? "ready" : "not_ready", checks }, { status: ready ? 200 : 503 });
  },
});
