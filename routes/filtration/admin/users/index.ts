import { t } from "elysia";
import { listUsers } from "../../../../services/rbac/users.ts";
import { route } from "../../../../server/http/route.ts";
import { OrganizationUser } from "../../_schemas/rbac.ts";

export const GET = route({
  access: "users:read",
  summary: "The users of your organization and their roles",
  response: t.Object({ users: t.Array(OrganizationUser) }),
  handler: ({ ctx }) => listUsers(ctx),
});
