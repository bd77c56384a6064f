import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { Permissions, RoleName } from "#services/rbac/requests.ts";
import { deleteRole, updateRole } from "#services/rbac/roles.ts";
import { Role } from "../../_schemas/rbac.ts";

const params = t.Object({ name: t.String({ maxLength: 64 }) });

export const PUT = route({
  access: "roles:write",
  summary: "Change a custom role: its permissions, description or name",
  description: "Built-in roles (admin, developer, viewer) cannot be changed: 409.",
  params,
  body: t.Object({
    name: t.Optional(RoleName),
    description: t.Optional(t.String({ maxLength: 500 })),
    permissions: t.Optional(Permissions),
  }),
  response: Role,
  handler: ({ ctx, params, body }) => updateRole(ctx, params.name, body),
});

export const DELETE = route({
  access: "roles:write",
  summary: "Delete a custom role nobody holds",
  description: "409 for a built-in role or one still held by a user.",
  params,
  response: t.Object({ name: t.String(), deleted: t.Literal(true) }),
  handler: ({ ctx, params }) => deleteRole(ctx, params.name),
});
