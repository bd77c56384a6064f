import { t } from "elysia";
import { route } from "#server/http/route.ts";

export const GET = route({
  access: "public",
  summary: "Liveness: the process answers",
  tags: ["health"],
  response: t.Object({ status: t.Literal("ok"), gateway: t.String() }),
  handler: ({ gateway }) => ({ status: "ok" as const, gateway: gateway.name }),
});
