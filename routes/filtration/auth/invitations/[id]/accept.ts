import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { acceptInvitation } from "#services/auth/invitations.ts";
import { OrganizationMembership } from "../../../_schemas/organizations.ts";

export const POST = route({
  access: "authenticated",
  summary: "Accept an invitation: become a member of that organization with the invited role",
  description:
    "Switch into it afterwards with POST /auth/switch-org. 404 for an invitation that is not yours " +
    "(or was answered already); 409 for an expired one.",
  params: t.Object({ id: t.String({ format: "uuid" }) }),
  response: OrganizationMembership,
  handler: ({ ctx, params }) => acceptInvitation(ctx, params.id),
});
