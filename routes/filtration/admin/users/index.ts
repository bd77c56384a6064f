import { t } from "elysia";
import { route } from "../../../../server/http/route.ts";
import { listUsers } from "../../../../services/rbac/users.ts";
import { OrganizationUser } from "../../_schemas/rbac.ts";

export const GET = route({
  access: "users:read",
  summary: "The users of your organization and their roles",
  response: t.Object({ users: t.Array(OrganizationUser) }),
  handler: ({ ctx }) => listUsers(ctx),
});
