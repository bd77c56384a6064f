import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { AddUserBody } from "#services/rbac/requests.ts";
import { addUser, listUsers } from "#services/rbac/users.ts";
import { OrganizationUser } from "../../_schemas/rbac.ts";

export const GET = route({
  access: "users:read",
  summary: "The users of your organization and their roles",
  response: t.Object({ users: t.Array(OrganizationUser) }),
  handler: ({ ctx }) => listUsers(ctx),
});

export const POST = route({
  access: "users:write",
  summary: "Add a user to your organization with a role",
  description:
    "A new account with its first `password`, or an existing account (of another organization) as a member " +
    "(`password` ignored). 409 when already a member; 403 for a role with permissions you do not hold.",
  body: AddUserBody,
  status: 201,
  response: OrganizationUser,
  handler: ({ ctx, body }) => addUser(ctx, body),
});
