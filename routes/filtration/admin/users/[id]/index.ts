import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { removeUser } from "#services/rbac/users.ts";

export const DELETE = route({
  access: "users:write",
  summary: "Remove a user from your organization",
  description:
    "The membership goes (the account and its other organizations stay) and the user's sessions in " +
    "this organization end at once. 404 for a user outside your organization; 409 for its last admin; " +
    "403 when their role carries a permission you do not hold.",
  params: t.Object({ id: t.String({ format: "uuid" }) }),
  response: t.Object({ id: t.String(), deleted: t.Literal(true) }),
  handler: async ({ ctx, params }) => {
    await removeUser(ctx, params.id);
    return { id: params.id, deleted: true as const };
  },
});
