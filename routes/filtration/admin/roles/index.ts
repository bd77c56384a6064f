import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { CreateRoleBody } from "#services/rbac/requests.ts";
import { createRole, listRoles } from "#services/rbac/roles.ts";
import { Role } from "../../_schemas/rbac.ts";

export const GET = route({
  access: "roles:read",
  summary: "The roles of your organization (built-in first) with their permissions",
  response: t.Object({ roles: t.Array(Role) }),
  handler: ({ ctx }) => listRoles(ctx),
});

export const POST = route({
  access: "roles:write",
  summary: "Create a custom role",
  description: "409 for a name taken; 403 when it would grant a permission you do not hold.",
  body: CreateRoleBody,
  status: 201,
  response: Role,
  handler: ({ ctx, body }) => createRole(ctx, body),
});
