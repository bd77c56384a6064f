import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { listPermissions } from "#services/rbac/roles.ts";

export const GET = route({
  access: "roles:read",
  summary: "Every permission a role can carry, with what it allows",
  response: t.Object({ permissions: t.Array(t.Object({ name: t.String(), description: t.String() })) }),
  handler: () => listPermissions(),
});
