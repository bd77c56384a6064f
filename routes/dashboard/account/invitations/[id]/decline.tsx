import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { declineInvitation } from "#services/auth/invitations.ts";
import { answerInvitation } from "../_answer.ts";

export const POST = route({
  access: "authenticated",
  summary: "Decline an invitation to another organization from the Account page",
  html: true,
  params: t.Object({ id: t.String({ format: "uuid" }) }),
  handler: ({ ctx, params }) => answerInvitation(() => declineInvitation(ctx, params.id), "declined"),
});
