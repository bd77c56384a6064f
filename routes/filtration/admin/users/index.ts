import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { AddUserBody } from "#services/rbac/requests.ts";
import { addUser, listUsers } from "#services/rbac/users.ts";
import { OrganizationUser, PendingMember } from "../../_schemas/rbac.ts";

export const GET = route({
  access: "users:read",
  summary: "The users of your organization and their roles, and those added who have not joined yet",
  description:
    "`invitations`: people added with POST /admin/users who are not members yet, whether their e-mail " +
    "had an account or not (an existing account joins when it accepts; a new one at its first sign-in).",
  response: t.Object({ users: t.Array(OrganizationUser), invitations: t.Array(PendingMember) }),
  handler: ({ ctx }) => listUsers(ctx),
});

export const POST = route({
  access: "users:write",
  summary: "Invite someone to your organization with a role",
  description:
    "Always an invitation (`id` is the invitation's), listed under `invitations` of GET /admin/users until " +
    "the person joins: an e-mail without an account becomes an account with this first `password`, which " +
    "joins at its first sign-in; an existing account (of another organization) joins when it accepts (POST " +
    "/auth/invitations/{id}/accept). The answer and the list are the same for both, so they do not tell " +
    "whether an account exists. 409 when already a member; 403 for a role with permissions you do not hold.",
  body: AddUserBody,
  status: 201,
  response: OrganizationUser,
  handler: ({ ctx, body }) => addUser(ctx, body),
});
