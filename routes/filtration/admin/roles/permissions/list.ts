import { t } from "elysia";
import { listPermissions } from "../../../../../services/rbac/roles.ts";
import { route } from "../../../../../server/http/route.ts";

export const GET = route({
  access: "roles:read",
  summary: "Every permission a role can carry, with what it allows",
  response: t.Object({ permissions: t.Array(t.Object({ name: t.String(), description: t.String() })) }),
  handler: () => listPermissions(),
});
