import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { declineInvitation } from "#services/auth/invitations.ts";

export const POST = route({
  access: "authenticated",
  summary: "Decline an invitation; it is deleted",
  description: "404 for an invitation that is not yours (or was answered already).",
  params: t.Object({ id: t.String({ format: "uuid" }) }),
  response: t.Object({ id: t.String(), declined: t.Literal(true) }),
  handler: async ({ ctx, params }) => {
    await declineInvitation(ctx, params.id);
    return { id: params.id, declined: true as const };
  },
});
