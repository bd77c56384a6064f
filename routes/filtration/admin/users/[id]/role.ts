import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { setUserRole } from "#services/rbac/users.ts";

export const PUT = route({
  access: "users:write",
  summary: "Give a user of your organization another role",
  description:
    "404 for a user outside your organization; 400 for an unknown role; 409 when it would demote the " +
    "organization's last admin; 403 when either role carries a permission you do not hold.",
  params: t.Object({ id: t.String({ format: "uuid" }) }),
  body: t.Object({ role: t.String({ minLength: 1, maxLength: 64 }) }),
  response: t.Object({ id: t.String(), email: t.String(), role: t.String() }),
  handler: ({ ctx, params, body }) => setUserRole(ctx, params.id, body.role),
});
