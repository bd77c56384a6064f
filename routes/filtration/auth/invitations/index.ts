import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { listMyInvitations } from "#services/auth/invitations.ts";
import { PendingInvitation } from "../../_schemas/organizations.ts";

export const GET = route({
  access: "authenticated",
  summary: "The invitations to other organizations waiting for your answer",
  description: "Pending and not expired; an invitation is accepted within 7 days.",
  response: t.Object({ invitations: t.Array(PendingInvitation) }),
  handler: ({ ctx }) => listMyInvitations(ctx),
});
