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
  summary: "Add a user to your organization with a role (an existing account is invited)",
  description:
    "An e-mail without an account becomes a new account and member with its first `password`. An existing " +
    "account (of another organization) is invited instead and joins when it accepts (POST " +
    "/auth/invitations/{id}/accept); the answer is the same for both (`id` is then the invitation's), so it " +
    "does not tell whether an account exists. 409 when already a member; 403 for a role with permissions " +
    "you do not hold.",
  body: AddUserBody,
  status: 201,
  response: OrganizationUser,
  handler: ({ ctx, body }) => addUser(ctx, body),
});
